import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { AppError, errorMessage } from '../core/errors.ts';
import type { DockerodeLoader } from './docker-engine.ts';

/** A short-lived container in the host's PID namespace, for what only the host can tell or do. */
export interface HostHelperRun {
  cmd: string[];
  /** Full powers over the host (nsenter into PID 1's namespaces); without, no capabilities at all. */
  privileged: boolean;
  timeoutMs?: number;
}

export interface HostHelperOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export type HostHelper = (run: HostHelperRun) => Promise<HostHelperOutput>;

const MAX_OUTPUT = 64 * 1024;

/**
 * Runs a command in a container of `image` (a small busybox image already on the engine, like the port check's
 * probe: never pulled here) with `pid: host`, and returns its exit code and output. The container has no network
 * and is removed afterwards, also when it hangs past the timeout. A missing image is a `conflict` naming it.
 */
export function createHostHelper(loadDocker: DockerodeLoader, image: string, labels: Record<string, string> = {}): HostHelper {
  return async (run) => {
    const timeoutMs = run.timeoutMs ?? 15_000;
    let container: Docker.Container | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const docker = await loadDocker();
      container = await docker.createContainer({
        Image: image,
        Cmd: run.cmd,
        Labels: { 'kade.probe': 'engine-restart', ...labels },
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        HostConfig: {
          PidMode: 'host',
          NetworkMode: 'none',
          Init: true,
          ReadonlyRootfs: true,
          Memory: 32 << 20,
          ...(run.privileged ? { Privileged: true } : { CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'] }),
        },
      });
      const out = collect();
      const err = collect();
      const stream = await container.attach({ stream: true, stdout: true, stderr: true });
      docker.modem.demuxStream(stream, out.sink, err.sink);
      await container.start();
      const waited = (await Promise.race([
        container.wait(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the helper container did not finish within ${timeoutMs / 1000} s`)), timeoutMs);
        }),
      ])) as { StatusCode: number };
      // The attach stream may still hold the last bytes when wait answers.
      await new Promise((r) => setImmediate(r));
      return { exitCode: waited.StatusCode, stdout: out.text(), stderr: err.text() };
    } catch (e) {
      throw translate(e, image);
    } finally {
      clearTimeout(timer);
      await container?.remove({ force: true }).catch(() => undefined);
    }
  };
}

function collect(): { sink: PassThrough; text: () => string } {
  const parts: Buffer[] = [];
  let size = 0;
  const sink = new PassThrough();
  sink.on('data', (b: Buffer) => {
    if (size < MAX_OUTPUT) parts.push(b.subarray(0, MAX_OUTPUT - size));
    size += b.length;
  });
  return { sink, text: () => Buffer.concat(parts).toString('utf8') };
}

function translate(err: unknown, image: string): AppError {
  if (err instanceof AppError) return err;
  const e = err as { statusCode?: number; code?: string };
  const message = errorMessage(err);
  if (e.statusCode === 404 && /image/i.test(message)) {
    return new AppError('conflict', `the helper image '${image}' (SVC_PROBE_IMAGE) is not present on the engine: get it with \`docker pull ${image}\``, {
      params: { reason: 'image_missing', image },
      cause: err,
    });
  }
  if (e.statusCode === undefined && (e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'EACCES' || e.code === 'ECONNRESET')) {
    return new AppError('engine_unreachable', `container engine not reachable: ${message}`, { cause: err });
  }
  return new AppError('engine_unreachable', `the helper container failed: ${message}`, { cause: err });
}
