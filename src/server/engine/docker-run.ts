import type { IncomingMessage } from 'node:http';
import { AppError, errorMessage } from '../core/errors.ts';
import { call, change, translate } from './docker-errors.ts';
import { collector, createDemuxer } from './docker-exec.ts';
import type { ContainerSpec, RunOptions, RunResult } from './engine.ts';
import { type EngineApi, type EngineFault, readBody } from './engine-api.ts';

const seg = encodeURIComponent;

const POWERS = {
  none: { CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'] },
  privileged: { Privileged: true },
  default: {},
};

/** The engine's create body for `spec`. */
export function createBody(spec: ContainerSpec): Record<string, unknown> {
  const exposed = [...(spec.expose ?? []), ...(spec.publish ?? []).map((p) => p.port)];
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  for (const p of spec.publish ?? []) bindings[p.port] = [...(bindings[p.port] ?? []), { HostIp: p.hostIp, HostPort: String(p.hostPort) }];
  return {
    Image: spec.image,
    Cmd: spec.cmd,
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
    ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
    ...(spec.user ? { User: spec.user } : {}),
    Env: spec.env ?? [],
    Labels: spec.labels ?? {},
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    ...(exposed.length > 0 ? { ExposedPorts: Object.fromEntries(exposed.map((p) => [p, {}])) } : {}),
    HostConfig: {
      Init: true,
      ...(spec.network ? { NetworkMode: spec.network } : {}),
      ...(spec.hostPid ? { PidMode: 'host' } : {}),
      ...POWERS[spec.powers ?? 'default'],
      ...(spec.readOnlyRoot ? { ReadonlyRootfs: true } : {}),
      ...(spec.memoryBytes ? { Memory: spec.memoryBytes } : {}),
      ...(spec.autoRemove ? { AutoRemove: true } : {}),
      ...(spec.mounts
        ? { Mounts: spec.mounts.map((m) => ({ Type: m.type, Source: m.source, Target: m.target, ...(m.readOnly ? { ReadOnly: true } : {}) })) }
        : {}),
      ...(spec.publish?.length ? { PortBindings: bindings } : {}),
    },
  };
}

/** The engine's 404 on create: the image (or a network the spec names) is missing. */
function createRefused(spec: ContainerSpec, err: unknown): AppError {
  const message = errorMessage(err);
  if (/image/i.test(message)) {
    return new AppError('not_found', `the image '${spec.image}' is not present on the engine`, { params: { what: 'image', name: spec.image }, cause: err });
  }
  return new AppError('not_found', `the engine cannot create the container: ${message}`, { params: { what: 'network', name: spec.network ?? '' }, cause: err });
}

/** Creates a container and answers its id (see Engine.createContainer). */
export async function createContainer(api: EngineApi, spec: ContainerSpec): Promise<string> {
  try {
    const created = await api.change<{ Id: string }>('POST', '/containers/create', {
      ...(spec.name ? { query: { name: spec.name } } : {}),
      body: createBody(spec),
    });
    return created.Id;
  } catch (err) {
    if ((err as EngineFault).statusCode === 404) throw createRefused(spec, err);
    throw translate(err, spec.name ?? spec.image);
  }
}

/** The exit code the engine's wait answers once the container stopped. */
async function exitCodeOf(res: IncomingMessage, id: string): Promise<number> {
  const answer = JSON.parse((await readBody(res)).toString('utf8')) as { StatusCode: number; Error?: { Message?: string } | null };
  if (answer.Error?.Message) throw new AppError('engine_unreachable', `waiting for container '${id}' failed: ${answer.Error.Message}`);
  return answer.StatusCode;
}

/** Runs a short-lived container to its end and removes it (see Engine.runContainer). */
export async function runContainer(api: EngineApi, spec: ContainerSpec, opts: RunOptions): Promise<RunResult> {
  const id = await createContainer(api, spec);
  const streams: IncomingMessage[] = [];
  let timer: NodeJS.Timeout | undefined;
  let exited = false;
  try {
    // Attached and waited for before the start: a short command's output and exit are never missed, and an
    // automatically removed container is gone by the time a later wait would ask for it.
    const [attached, waiting] = await Promise.all([
      call(() => api.stream('POST', `/containers/${seg(id)}/attach`, { query: { stream: true, stdout: true, stderr: true } }), id),
      call(() => api.stream('POST', `/containers/${seg(id)}/wait`, { query: { condition: 'next-exit' } }), id),
    ]);
    streams.push(attached, waiting);
    const out = collector(opts.outputLimit);
    const err = collector(opts.outputLimit);
    const demux = createDemuxer((chunk) => err.sink.write(chunk));
    demux.pipe(out.sink);
    const outputEnded = new Promise<void>((resolve, reject) => {
      let ended = false;
      const finish = () => {
        if (ended) return;
        ended = true;
        out.sink.once('finish', () => resolve());
        demux.end();
      };
      attached.once('end', finish);
      attached.once('close', finish);
      attached.once('error', reject);
    });
    attached.pipe(demux, { end: false });
    await change(() => api.change('POST', `/containers/${seg(id)}/start`), id);
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const s = opts.timeoutMs / 1000;
        reject(new AppError('engine_unreachable', `the container of '${spec.image}' did not finish within ${s} s`, { params: { reason: 'timeout' } }));
      }, opts.timeoutMs);
    });
    const [exitCode] = await Promise.race([Promise.all([exitCodeOf(waiting, id), outputEnded]), timedOut]);
    exited = true;
    return { exitCode, stdout: out.text(), stderr: err.text() };
  } catch (e) {
    throw translate(e, id);
  } finally {
    clearTimeout(timer);
    for (const s of streams) s.destroy();
    // A container the engine removes itself is ours to remove only when it did not run to its end.
    if (!(spec.autoRemove && exited)) await api.change('DELETE', `/containers/${seg(id)}`, { query: { force: true } }).catch(() => undefined);
  }
}
