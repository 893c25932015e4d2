import { errorMessage } from '../core/errors.ts';
import type { Engine } from '../engine/engine.ts';

/** Gets the host probe's small image (SVC_PROBE_IMAGE) onto the engine when it is missing. */
export interface ProbeImagePuller {
  /**
   * Pulls the image unless the engine has it. One pull at a time: callers during a pull share it; after a
   * failed pull the next attempt waits `retryMs`. Never throws; answers whether the image is there now.
   */
  ensure(): Promise<boolean>;
}

export function createProbeImagePuller(opts: {
  engine: Pick<Engine, 'inspectImage' | 'pullImage'>;
  image: string;
  /** False: never pull (SVC_PROBE_PULL=0); `ensure` only looks. */
  pull?: boolean;
  onPulled?: () => void;
  onFailure?: (message: string) => void;
  retryMs?: number;
  now?: () => number;
}): ProbeImagePuller {
  const { image } = opts;
  const retryMs = opts.retryMs ?? 5 * 60_000;
  const now = opts.now ?? Date.now;
  let running: Promise<boolean> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;

  async function present(): Promise<boolean> {
    return (await opts.engine.inspectImage(image)) !== null;
  }

  async function run(): Promise<boolean> {
    try {
      if (await present()) return true;
    } catch (err) {
      opts.onFailure?.(`cannot look for the probe image '${image}': ${errorMessage(err)}`);
      return false;
    }
    if (opts.pull === false || now() - failedAt < retryMs) return false;
    try {
      await opts.engine.pullImage(image);
      opts.onPulled?.();
      return true;
    } catch (err) {
      failedAt = now();
      opts.onFailure?.(`pulling the probe image '${image}' failed: ${errorMessage(err)}`);
      return false;
    }
  }

  return {
    ensure() {
      running ??= run().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
