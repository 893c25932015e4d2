import type { Logger } from '../core/logger.ts';
import type { Engine } from '../engine/engine.ts';
import type { ImageCheck, ImageChecker, UpdateState } from './image-check.ts';
import { createTtlCache, HOUR_MS } from './result-cache.ts';

export const STACK_RESULT_TTL_MS = 6 * HOUR_MS;
export const DAILY_MS = 24 * HOUR_MS;

export interface StackCheck {
  name: string;
  update: UpdateState;
  images: ImageCheck[];
}

/** A stack has an update when any image has one; it is current only when nothing stayed open. */
export function stackState(images: readonly ImageCheck[]): UpdateState {
  if (images.some((i) => i.state === 'update')) return 'update';
  // A locally built image has nothing to compare; it does not keep the others from counting.
  const judged = images.filter((i) => i.reason !== 'local_build');
  if (judged.length > 0 && judged.every((i) => i.state === 'current')) return 'current';
  return 'unknown';
}

interface ContainerImage {
  image: string;
  id: string;
}

/** The image each container was created from (the reference in its config) and the image id it runs. */
async function imagesOf(engine: Engine, stack: string): Promise<ContainerImage[]> {
  const seen = new Map<string, ContainerImage>();
  for (const c of await engine.listContainers({ project: stack })) {
    const info = (await engine.inspectContainer(c.id)) as { Image?: string; Config?: { Image?: string } };
    const image = info.Config?.Image ?? c.image;
    const id = info.Image ?? image;
    seen.set(`${image} ${id}`, { image, id });
  }
  return [...seen.values()];
}

export interface StackUpdatesDeps {
  engine: Engine;
  checker: ImageChecker;
  /** Names of the installed stacks, for the background check. */
  stackNames: () => string[];
  logger: Logger;
  now: () => number;
  /** UPDATE_CHECK_ENABLED as it is now: when off, the background check asks no registry (a manual check still does). */
  enabled?: () => boolean;
  /** Told the stacks of each background round (the notifier's update_available). */
  onRound?: (checks: StackCheck[]) => void;
}

/**
 * The per-stack update state that `GET /api/stacks` shows: read from a 6-hour cache only, so the
 * list never waits for a registry. The cache is filled by a daily background check and by a manual check.
 */
export function createStackUpdates(d: StackUpdatesDeps) {
  const results = createTtlCache<UpdateState>({ now: d.now, ttl: () => STACK_RESULT_TTL_MS });
  const lastImages = new Map<string, string[]>();
  let timers: NodeJS.Timeout[] = [];

  async function check(name: string, opts: { force?: boolean } = {}): Promise<StackCheck> {
    const images = await imagesOf(d.engine, name);
    const checks = await Promise.all(images.map((i) => d.checker.check(i.image, { localImage: i.id, ...(opts.force ? { force: true } : {}) })));
    const update = stackState(checks);
    results.set(name, update);
    lastImages.set(
      name,
      images.map((i) => i.image),
    );
    return { name, update, images: checks };
  }

  /** Every stack; stacks run side by side, the checker's limiter keeps each registry at four requests. */
  async function checkAll(): Promise<StackCheck[]> {
    const names = d.stackNames();
    const outcomes = await Promise.allSettled(names.map((n) => check(n)));
    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [`${names[i]}: ${String(o.reason)}`] : []));
    if (failed.length > 0) d.logger.warn({ failed }, 'update check of some apps failed');
    return outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  }

  const runInBackground = () => {
    if (d.enabled && !d.enabled()) {
      d.logger.info('background update check skipped: UPDATE_CHECK_ENABLED is off');
      return;
    }
    checkAll()
      .then((checks) => d.onRound?.(checks))
      .catch((err: unknown) => d.logger.warn({ err }, 'background update check failed'));
  };

  return {
    check,
    checkAll,
    /** The cached state; 'unknown' when the stack was not checked in the last six hours. */
    state: (name: string): UpdateState => results.get(name) ?? 'unknown',
    /** Forgets a stack's result and its images' cached answers (after an update, a removal). */
    forget(name: string): void {
      results.delete(name);
      d.checker.forget(lastImages.get(name) ?? []);
      lastImages.delete(name);
    },
    /** A first check after `firstDelayMs`, then daily. The timers never keep the process alive. */
    schedule(opts: { firstDelayMs: number; intervalMs?: number }): void {
      for (const t of timers) clearTimeout(t);
      timers = [setTimeout(runInBackground, opts.firstDelayMs).unref(), setInterval(runInBackground, opts.intervalMs ?? DAILY_MS).unref()];
    },
    stop(): void {
      for (const t of timers) clearTimeout(t);
      timers = [];
    },
  };
}

export type StackUpdates = ReturnType<typeof createStackUpdates>;
