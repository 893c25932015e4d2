import { PassThrough, Transform, Writable } from 'node:stream';
import Docker from 'dockerode';
import type { EngineEndpoint } from '../config/config.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import { dockerContainerEvents } from './docker-events.ts';
import {
  COMPOSE_PROJECT_LABEL,
  COMPOSE_SERVICE_LABEL,
  COMPOSE_WORKDIR_LABEL,
  type ContainerSummary,
  type Engine,
  EXEC_OUTPUT_LIMIT,
  type ExecOptions,
  type ExecResult,
  type ExecStream,
  type ExecStreamOptions,
  type LogOptions,
  type NetworkSummary,
} from './engine.ts';

interface DockerErr {
  statusCode?: number;
  code?: string;
}

/**
 * How long a read (version, listings, container inspect) may take: an engine that accepts connections and never
 * answers (hung, or its socket held by something else) must not hang the app list or a job forever.
 * Changes (start, stop, exec, log streams) keep no such bound: they may take long by nature.
 */
export const ENGINE_READ_TIMEOUT_MS = 20_000;
const reading = () => ({ abortSignal: AbortSignal.timeout(ENGINE_READ_TIMEOUT_MS) });

/** Maps engine failures to AppError: unknown containers are 404, an unreachable engine 502. */
function translate(err: unknown, id?: string): AppError {
  const e = err as DockerErr;
  if ((err as Error | null)?.name === 'AbortError' || (err as Error | null)?.name === 'TimeoutError') {
    return new AppError('engine_unreachable', `the container engine did not answer within ${ENGINE_READ_TIMEOUT_MS / 1000} s`, { cause: err });
  }
  if (e.statusCode === 404) return new AppError('not_found', `container '${id ?? ''}' does not exist`, { params: { what: 'container', name: id ?? '' } });
  if (e.statusCode === 409) return new AppError('conflict', errorMessage(err), { cause: err });
  if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'EACCES' || e.statusCode === undefined) {
    return new AppError('engine_unreachable', `container engine not reachable: ${errorMessage(err)}`, { cause: err });
  }
  return new AppError('engine_unreachable', `container engine refused: ${errorMessage(err)}`, { cause: err });
}

async function call<T>(fn: () => Promise<T>, id?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translate(err, id);
  }
}

/** Start, stop and restart: the engine answers 304 when the container is already so, which is success. */
async function change(fn: () => Promise<unknown>, id: string): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if ((err as DockerErr).statusCode === 304) return;
    throw translate(err, id);
  }
}

function summarise(c: Docker.ContainerInfo): ContainerSummary {
  const labels = c.Labels ?? {};
  const health = /\((healthy|unhealthy|health: starting)\)/.exec(c.Status ?? '')?.[1] ?? null;
  return {
    id: c.Id,
    name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''),
    image: c.Image,
    state: c.State,
    status: c.Status,
    health: health === 'health: starting' ? 'starting' : health,
    ports: (c.Ports ?? []).map((p) => ({
      host_ip: p.IP ?? null,
      host_port: p.PublicPort ?? null,
      container_port: p.PrivatePort,
      protocol: p.Type,
    })),
    labels,
    project: labels[COMPOSE_PROJECT_LABEL] ?? null,
    service: labels[COMPOSE_SERVICE_LABEL] ?? null,
    workingDir: labels[COMPOSE_WORKDIR_LABEL] ?? null,
    created: c.Created,
    networks: Object.fromEntries(Object.entries(c.NetworkSettings?.Networks ?? {}).map(([n, v]) => [n, v.IPAddress || null])),
  };
}

function summariseNetwork(n: Docker.NetworkInspectInfo): NetworkSummary {
  return {
    id: n.Id,
    name: n.Name,
    driver: n.Driver,
    subnets: (n.IPAM?.Config ?? [])
      .filter((c) => typeof c.Subnet === 'string' && c.Subnet.includes('.'))
      .map((c) => ({ subnet: c.Subnet as string, gateway: c.Gateway ?? null, range: c.IPRange ?? null })),
    parent: n.Options?.parent ?? null,
    labels: n.Labels ?? {},
  };
}

/** The Docker Engine API over one endpoint (a unix socket or a tcp host). */
export function createDockerEngine(endpoint: EngineEndpoint): Engine & { docker: Docker } {
  const docker = new Docker(endpoint);
  // The types leave out version's options; dockerode passes `abortSignal` there like in the other reads.
  const version = docker.version.bind(docker) as unknown as (opts: { abortSignal: AbortSignal }) => Promise<Docker.DockerVersion>;
  return {
    docker,
    async ping() {
      const v = await call(() => version(reading()));
      return { version: v.Version, apiVersion: v.ApiVersion };
    },
    async listContainers(opts = {}) {
      const label = opts.project ? [`${COMPOSE_PROJECT_LABEL}=${opts.project}`] : opts.composeOnly ? [COMPOSE_PROJECT_LABEL] : null;
      const filters = label || opts.ids ? { ...(label ? { label } : {}), ...(opts.ids ? { id: opts.ids } : {}) } : undefined;
      const list = await call(() => docker.listContainers({ all: true, ...(filters ? { filters } : {}), ...reading() }));
      return list.map(summarise);
    },
    inspectContainer: (id) => call(async () => (await docker.getContainer(id).inspect(reading())) as unknown as Record<string, unknown>, id),
    async inspectImage(ref) {
      try {
        const info = await docker.getImage(ref).inspect();
        return { id: info.Id, repoDigests: info.RepoDigests ?? [] };
      } catch (err) {
        if ((err as DockerErr).statusCode === 404) return null;
        throw translate(err, ref);
      }
    },
    async listImageTags(repository) {
      // The engine matches the name (any tag) but returns whole images, whose RepoTags may name other repositories.
      const images = await call(() => docker.listImages({ filters: { reference: [repository] }, ...reading() }));
      const tags = new Set<string>();
      for (const tag of images.flatMap((i) => i.RepoTags ?? [])) {
        const colon = tag.lastIndexOf(':');
        if (colon > tag.lastIndexOf('/') && tag.slice(0, colon) === repository) tags.add(tag.slice(colon + 1));
      }
      return [...tags];
    },
    startContainer: (id) => change(() => docker.getContainer(id).start(), id),
    stopContainer: (id) => change(() => docker.getContainer(id).stop({ t: 10 }), id),
    restartContainer: (id) => change(() => docker.getContainer(id).restart({ t: 10 }), id),
    removeContainer: (id) => call(async () => void (await docker.getContainer(id).remove({ force: true, v: false })), id),
    async containerLogs(id: string, opts: LogOptions) {
      const container = docker.getContainer(id);
      const info = await call(() => container.inspect(), id);
      const base = { stdout: true, stderr: true, timestamps: opts.timestamps ?? false, tail: opts.tail ?? 200, ...(opts.since ? { since: opts.since } : {}) };
      const out = new PassThrough();
      if (opts.follow) {
        const stream = await call(() => container.logs({ ...base, follow: true }), id);
        if (info.Config.Tty) stream.pipe(out);
        else {
          // demuxStream ignores backpressure: the engine's stream is paused while the reader is behind.
          const sink = {
            write: (chunk: Buffer) => {
              if (!out.write(chunk)) stream.pause();
            },
          };
          docker.modem.demuxStream(stream, sink as unknown as Writable, sink as unknown as Writable);
          out.on('drain', () => stream.resume());
        }
        // An engine that goes away without ending the response (killed, crashed, its connection dropped) gives no
        // 'end', only 'close' (or 'error'): the follower's stream must end then too, not wait forever.
        const finish = () => {
          if (!out.writableEnded) out.end();
        };
        stream.on('end', finish);
        stream.on('close', finish);
        stream.on('error', finish);
        out.on('close', () => (stream as unknown as { destroy?: () => void }).destroy?.());
        return out;
      }
      const buf = await call(() => container.logs({ ...base, follow: false }), id);
      out.end(info.Config.Tty ? buf : demuxBuffer(buf));
      return out;
    },
    exec: (id, opts) => execIn(docker, id, opts),
    execStream: (id, opts) => execStreamIn(docker, id, opts),
    async listVolumes(opts) {
      const answer = await call(() => docker.listVolumes({ filters: { label: [`${COMPOSE_PROJECT_LABEL}=${opts.project}`] }, ...reading() }));
      return (answer.Volumes ?? []).map((v) => v.Name);
    },
    async removeVolume(name) {
      try {
        await docker.getVolume(name).remove();
      } catch (err) {
        if ((err as DockerErr).statusCode === 404) return;
        throw translate(err, name);
      }
    },
    async listNetworks() {
      return (await call(() => docker.listNetworks(reading()))).map(summariseNetwork);
    },
    async createNetwork(spec) {
      const ipam = spec.subnet
        ? [{ Subnet: spec.subnet, ...(spec.gateway ? { Gateway: spec.gateway } : {}), ...(spec.range ? { IPRange: spec.range } : {}) }]
        : [];
      try {
        await docker.createNetwork({
          Name: spec.name,
          Driver: spec.driver,
          CheckDuplicate: true,
          Labels: spec.labels,
          IPAM: { Driver: 'default', Config: ipam },
          ...(spec.parent ? { Options: { parent: spec.parent } } : {}),
        });
      } catch (err) {
        const e = err as DockerErr;
        if (e.statusCode === 409) throw new AppError('name_taken', `the engine already has a network '${spec.name}'`, { params: { name: spec.name } });
        if (e.statusCode === 400 || e.statusCode === 403 || e.statusCode === 404 || e.statusCode === 500) {
          throw new AppError('network_invalid', `the engine refused network '${spec.name}': ${engineWords(err)}`, {
            params: { name: spec.name, code: 'engine_refused' },
            cause: err,
          });
        }
        throw translate(err, spec.name);
      }
    },
    async removeNetwork(name) {
      try {
        await docker.getNetwork(name).remove();
      } catch (err) {
        const e = err as DockerErr;
        if (e.statusCode === 404) return;
        if (e.statusCode === 403 || e.statusCode === 409) {
          throw new AppError('network_in_use', `network '${name}' still has containers: ${engineWords(err)}`, { params: { name, stacks: '' }, cause: err });
        }
        throw translate(err, name);
      }
    },
    containerEvents: (opts) => call(() => dockerContainerEvents(docker, opts)),
  };
}

/** The engine's own sentence from a dockerode error ("(HTTP code 400) bad parameter - <words>"). */
function engineWords(err: unknown): string {
  const json = (err as { json?: { message?: string } }).json;
  return json?.message ?? errorMessage(err);
}

/** Collects what a stream writes, keeping at most EXEC_OUTPUT_LIMIT bytes. */
function collector(): { sink: Writable; text: () => string } {
  const parts: Buffer[] = [];
  let size = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (size < EXEC_OUTPUT_LIMIT) {
        const part = chunk.subarray(0, EXEC_OUTPUT_LIMIT - size);
        parts.push(part);
        size += part.length;
      }
      done();
    },
  });
  return { sink, text: () => Buffer.concat(parts).toString('utf8') };
}

function notRunning(name: string, state: string): AppError {
  return new AppError('conflict', `container '${name}' is ${state}, so nothing can run inside it`, { params: { name, state } });
}

async function execIn(docker: Docker, id: string, opts: ExecOptions): Promise<ExecResult> {
  const withStdin = opts.stdin !== undefined;
  const { exec, name } = await startExec(docker, id, { ...opts, stdin: withStdin });
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const out = collector();
  const err = collector();
  const stream = await call(() => exec.start({ hijack: withStdin, stdin: withStdin }), id);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // The API cannot kill an exec; dropping the connection at least closes its stdin and output.
      stream.destroy();
      reject(new AppError('engine_unreachable', `command in container '${name}' did not finish within ${timeoutMs} ms`, { params: { name } }));
    }, timeoutMs);
    const finish = (e?: unknown) => {
      clearTimeout(timer);
      if (e) reject(translate(e, id));
      else resolve();
    };
    stream.once('end', () => finish());
    stream.once('close', () => finish());
    stream.once('error', finish);
    docker.modem.demuxStream(stream, out.sink, err.sink);
    if (withStdin) stream.end(opts.stdin);
  });
  return { exitCode: await exitCodeOf(exec, id, name), stdout: out.text(), stderr: err.text() };
}

/** The output ends as the process exits; the engine may record the exit code a moment later. */
async function exitCodeOf(exec: Docker.Exec, id: string, name: string): Promise<number> {
  for (let i = 0; ; i++) {
    const state = await call(() => exec.inspect(), id);
    if (!state.Running && state.ExitCode !== null) return state.ExitCode;
    if (i >= 50) throw new AppError('engine_unreachable', `the engine reports no exit code for a command in container '${name}'`, { params: { name } });
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Splits the engine's multiplexed output (8-byte frame headers) as it streams: stdout frames are
 * passed on with backpressure, stderr frames go to `onStderr`.
 */
export function createDemuxer(onStderr: (chunk: Buffer) => void): Transform {
  let header = Buffer.alloc(0);
  let remaining = 0;
  let kind = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, next) {
      let i = 0;
      while (i < chunk.length) {
        if (remaining === 0) {
          const take = Math.min(8 - header.length, chunk.length - i);
          header = Buffer.concat([header, chunk.subarray(i, i + take)]);
          i += take;
          if (header.length < 8) break;
          kind = header[0] ?? 0;
          remaining = header.readUInt32BE(4);
          header = Buffer.alloc(0);
          continue;
        }
        const n = Math.min(remaining, chunk.length - i);
        const part = chunk.subarray(i, i + n);
        if (kind === 1) this.push(part);
        else if (kind === 2) onStderr(part);
        remaining -= n;
        i += n;
      }
      next();
    },
  });
}

/** Creates an exec in a running container; a stopped or paused one is a conflict that names it. */
async function startExec(docker: Docker, id: string, opts: { cmd: string[]; env?: string[] | undefined; user?: string | undefined; stdin: boolean }) {
  const container = docker.getContainer(id);
  const info = await call(() => container.inspect(), id);
  const name = info.Name.replace(/^\//, '') || id;
  if (info.State.Paused) throw notRunning(name, 'paused');
  if (!info.State.Running) throw notRunning(name, 'not running');
  try {
    const exec = await container.exec({
      Cmd: opts.cmd,
      Env: opts.env ?? [],
      ...(opts.user ? { User: opts.user } : {}),
      AttachStdin: opts.stdin,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
    });
    return { exec, name };
  } catch (err) {
    // Stopped or paused between the inspect and the exec.
    if ((err as DockerErr).statusCode === 409) throw notRunning(name, 'not running');
    throw translate(err, id);
  }
}

async function execStreamIn(docker: Docker, id: string, opts: ExecStreamOptions): Promise<ExecStream> {
  const input = opts.stdin;
  const { exec, name } = await startExec(docker, id, { ...opts, stdin: !!input });
  // The raw connection (hijack) also without stdin: it streams with less buffering than the HTTP response.
  const socket = await call(() => exec.start({ hijack: true, stdin: !!input }), id);
  const err = collector();
  const stdout = createDemuxer((chunk) => err.sink.write(chunk));
  let ended = false;
  const dropped = (cause: unknown) =>
    cause instanceof AppError
      ? cause
      : new AppError('engine_unreachable', `the connection to a command in container '${name}' was dropped: ${errorMessage(cause)}`, {
          params: { name },
          cause,
        });
  const done = new Promise<{ exitCode: number; stderr: string }>((resolve, reject) => {
    let settled = false;
    const finish = (cause?: unknown) => {
      if (settled) return;
      settled = true;
      exitCodeOf(exec, id, name).then(
        (exitCode) => {
          // After a dropped connection the output may be incomplete; only a clean end ends stdout.
          if (cause === undefined) stdout.end();
          else stdout.destroy(dropped(cause));
          resolve({ exitCode, stderr: err.text() });
        },
        (e: unknown) => {
          const failure = cause === undefined ? e : dropped(cause);
          stdout.destroy(failure as Error);
          reject(failure);
        },
      );
    };
    socket.once('end', () => {
      ended = true;
      finish();
    });
    // A dropped connection can report more than one error; every one is handled, the first counts.
    socket.on('error', (e: unknown) => finish(e));
    socket.once('close', () => finish(ended ? undefined : new Error('closed before the output ended')));
    input?.on('error', (e: unknown) => socket.destroy(e instanceof Error ? e : new Error(String(e))));
  });
  // Nobody has to await `done`; a rejection nobody handles must not end the process.
  done.catch(() => {});
  socket.pipe(stdout, { end: false });
  stdout.once('close', () => {
    if (!ended) socket.destroy();
  });
  if (input) input.pipe(socket);
  return { stdout, done };
}

/** Strips the 8-byte stream headers the engine puts before each chunk of a non-tty log. */
export function demuxBuffer(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts);
}
