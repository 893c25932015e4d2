import type { Logger } from '../core/logger.ts';
import type { Engine } from '../engine/engine.ts';
import type { ImageCheck, ImageChecker, UpdateState } from './image-check.ts';
import { HOUR_MS } from './result-cache.ts';
import { memoryResultsStore, type UpdateResultsStore } from './update-results.repo.ts';

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
  /** UPDATE_CHECK_ENABLED as it is now: when off, Kade asks no registry on its own (a user's check still does). */
  enabled?: () => boolean;
  /** Told the stacks of each background round (the notifier's update_available). */
  onRound?: (checks: StackCheck[]) => void;
  /** Where the last known results outlive a restart; in memory when absent. */
  store?: UpdateResultsStore;
}

/** What the list shows of an app's update state: the last known result and when it was learned. */
export interface UpdateInfo {
  update: UpdateState;
  /** ISO time of the check that gave `update`; null when the app was never checked. */
  update_checked_at: string | null;
}

/** A failed refresh (registry down) is tried again after this, not at every look. */
export const RETRY_MS = HOUR_MS;
/** Apps refreshed at once after a look; the checker's limiter keeps each registry at four requests on top. */
export const REFRESH_AT_ONCE = 4;

/**
 * The per-stack update state that `GET /api/stacks` shows: the last known result with its time, kept
 * across restarts and never waited for. A result older than STACK_RESULT_TTL_MS stays shown with its age;
 * while UPDATE_CHECK_ENABLED is on, a look at it (`look()`) refreshes it in the background. Results come
 * from those refreshes, the daily background round and a user's check.
 */
export function createStackUpdates(d: StackUpdatesDeps) {
  const store = d.store ?? memoryResultsStore();
  const results = store.load();
  const lastImages = new Map<string, string[]>();
  const enabled = () => !d.enabled || d.enabled();
  let timers: NodeJS.Timeout[] = [];

  /** Keeps the new result, except that a registry failure never replaces a result already known. */
  function remember(name: string, update: UpdateState, checks: readonly ImageCheck[]): void {
    if (update === 'unknown' && results.has(name) && checks.some((c) => c.reason === 'registry')) return;
    const r = { state: update, checkedAt: d.now() };
    results.set(name, r);
    store.save(name, r);
  }

  async function check(name: string, opts: { force?: boolean } = {}): Promise<StackCheck> {
    const images = await imagesOf(d.engine, name);
    const checks = await Promise.all(images.map((i) => d.checker.check(i.image, { localImage: i.id, ...(opts.force ? { force: true } : {}) })));
    const update = stackState(checks);
    remember(name, update, checks);
    lastImages.set(
      name,
      images.map((i) => i.image),
    );
    return { name, update, images: checks };
  }

  /** Every stack; stacks run side by side, the checker's limiter keeps each registry at four requests. */
  async function checkAll(opts: { force?: boolean; onChecked?: (c: StackCheck | null, done: number, of: number) => void } = {}): Promise<StackCheck[]> {
    const names = d.stackNames();
    let done = 0;
    const outcomes = await Promise.allSettled(
      names.map(async (n) => {
        try {
          const c = await check(n, opts.force ? { force: true } : {});
          opts.onChecked?.(c, ++done, names.length);
          return c;
        } catch (err) {
          opts.onChecked?.(null, ++done, names.length);
          throw err;
        }
      }),
    );
    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [`${names[i]}: ${String(o.reason)}`] : []));
    if (failed.length > 0) d.logger.warn({ failed }, 'update check of some apps failed');
    return outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  }

  const runInBackground = () => {
    if (!enabled()) {
      d.logger.info('background update check skipped: UPDATE_CHECK_ENABLED is off');
      return;
    }
    checkAll()
      .then((checks) => d.onRound?.(checks))
      .catch((err: unknown) => d.logger.warn({ err }, 'background update check failed'));
  };

  // The refreshes a look asked for: a queue, REFRESH_AT_ONCE at a time, each app at most once per RETRY_MS.
  const queued: string[] = [];
  const refreshing = new Set<string>();
  const tried = new Map<string, number>();
  let active = 0;
  function pump(): void {
    while (active < REFRESH_AT_ONCE && queued.length > 0) {
      const name = queued.shift() as string;
      active++;
      check(name)
        .catch((err: unknown) => d.logger.warn({ err, stack: name }, 'update check after a look failed'))
        .finally(() => {
          active--;
          refreshing.delete(name);
          pump();
        });
    }
  }
  const stale = (name: string, now: number): boolean => {
    const r = results.get(name);
    return !r || now - r.checkedAt >= STACK_RESULT_TTL_MS;
  };

  return {
    check,
    checkAll,
    /** The last known result with its time; never a registry call. */
    known(name: string): UpdateInfo {
      const r = results.get(name);
      return r ? { update: r.state, update_checked_at: new Date(r.checkedAt).toISOString() } : { update: 'unknown', update_checked_at: null };
    },
    /**
     * Someone looks at these apps: those whose result is missing or older than STACK_RESULT_TTL_MS are checked
     * in the background (the week cache of image answers and the per-registry limit apply), only while
     * UPDATE_CHECK_ENABLED is on.
     */
    look(names: readonly string[]): void {
      if (!enabled()) return;
      const now = d.now();
      for (const n of names) {
        if (refreshing.has(n) || !stale(n, now) || now - (tried.get(n) ?? Number.NEGATIVE_INFINITY) < RETRY_MS) continue;
        refreshing.add(n);
        tried.set(n, now);
        queued.push(n);
      }
      pump();
    },
    /** Forgets a stack's result and its images' cached answers (after an update, a removal). */
    forget(name: string): void {
      results.delete(name);
      store.remove(name);
      tried.delete(name);
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
