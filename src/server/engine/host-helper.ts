import { AppError, errorMessage } from '../core/errors.ts';
import type { Engine } from './engine.ts';

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
export function createHostHelper(engine: Pick<Engine, 'runContainer'>, image: string, labels: Record<string, string> = {}): HostHelper {
  return async (run) => {
    const timeoutMs = run.timeoutMs ?? 15_000;
    try {
      return await engine.runContainer(
        {
          image,
          cmd: run.cmd,
          labels: { 'kade.probe': 'engine-restart', ...labels },
          hostPid: true,
          network: 'none',
          readOnlyRoot: true,
          memoryBytes: 32 << 20,
          powers: run.privileged ? 'privileged' : 'none',
        },
        { timeoutMs, outputLimit: MAX_OUTPUT },
      );
    } catch (e) {
      throw translate(e, image, timeoutMs);
    }
  };
}

function translate(err: unknown, image: string, timeoutMs: number): AppError {
  if (!(err instanceof AppError)) return new AppError('engine_unreachable', `the helper container failed: ${errorMessage(err)}`, { cause: err });
  if (err.code === 'not_found' && err.params.what === 'image') {
    return new AppError('conflict', `the helper image '${image}' (SVC_PROBE_IMAGE) is not present on the engine: get it with \`docker pull ${image}\``, {
      params: { reason: 'image_missing', image },
      cause: err,
    });
  }
  if (err.params.reason === 'timeout') {
    return new AppError('engine_unreachable', `the helper container failed: the helper container did not finish within ${timeoutMs / 1000} s`, { cause: err });
  }
  // Not reached at all (no socket, refused): the engine's own words say so already.
  if (err.code === 'engine_unreachable' && (err.cause as { statusCode?: number } | undefined)?.statusCode === undefined) return err;
  return new AppError('engine_unreachable', `the helper container failed: ${err.message}`, { cause: err });
}
