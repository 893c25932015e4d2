import type { Logger } from '../core/logger.ts';
import type { Engine } from '../engine/engine.ts';
import type { ImageCheck, ImageChecker, UpdateState } from './image-check.ts';
import { HOUR_MS } from './result-cache.ts';
import { type KnownResult, memoryResultsStore, type UpdateResultsStore } from './update-results.repo.ts';

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

/** The update state of every app in this process: the results, and the refreshes a look asked for. */
interface Updates {
  d: StackUpdatesDeps;
  store: UpdateResultsStore;
  results: Map<string, KnownResult>;
  lastImages: Map<string, string[]>;
  timers: NodeJS.Timeout[];
  // The refreshes a look asked for: a queue, REFRESH_AT_ONCE at a time, each app at most once per RETRY_MS.
  queued: string[];
  refreshing: Set<string>;
  tried: Map<string, number>;
  active: number;
}

type CheckAllOptions = { force?: boolean; onChecked?: (c: StackCheck | null, done: number, of: number) => void };

const enabled = (u: Updates) => !u.d.enabled || u.d.enabled();

/** Keeps the new result, except that a registry failure never replaces a result already known. */
function remember(u: Updates, name: string, update: UpdateState, checks: readonly ImageCheck[]): void {
  if (update === 'unknown' && u.results.has(name) && checks.some((c) => c.reason === 'registry')) return;
  const r = { state: update, checkedAt: u.d.now() };
  u.results.set(name, r);
  u.store.save(name, r);
}

async function check(u: Updates, name: string, opts: { force?: boolean } = {}): Promise<StackCheck> {
  const images = await imagesOf(u.d.engine, name);
  const checks = await Promise.all(images.map((i) => u.d.checker.check(i.image, { localImage: i.id, ...(opts.force ? { force: true } : {}) })));
  const update = stackState(checks);
  remember(u, name, update, checks);
  u.lastImages.set(
    name,
    images.map((i) => i.image),
  );
  return { name, update, images: checks };
}

/** Every stack; stacks run side by side, the checker's limiter keeps each registry at four requests. */
async function checkAll(u: Updates, opts: CheckAllOptions = {}): Promise<StackCheck[]> {
  const names = u.d.stackNames();
  let done = 0;
  const outcomes = await Promise.allSettled(
    names.map(async (n) => {
      try {
        const c = await check(u, n, opts.force ? { force: true } : {});
        opts.onChecked?.(c, ++done, names.length);
        return c;
      } catch (err) {
        opts.onChecked?.(null, ++done, names.length);
        throw err;
      }
    }),
  );
  const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [`${names[i]}: ${String(o.reason)}`] : []));
  if (failed.length > 0) u.d.logger.warn({ failed }, 'update check of some apps failed');
  return outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
}

function runInBackground(u: Updates): void {
  if (!enabled(u)) {
    u.d.logger.info('background update check skipped: UPDATE_CHECK_ENABLED is off');
    return;
  }
  checkAll(u)
    .then((checks) => u.d.onRound?.(checks))
    .catch((err: unknown) => u.d.logger.warn({ err }, 'background update check failed'));
}

function pump(u: Updates): void {
  while (u.active < REFRESH_AT_ONCE && u.queued.length > 0) {
    const name = u.queued.shift() as string;
    u.active++;
    check(u, name)
      .catch((err: unknown) => u.d.logger.warn({ err, stack: name }, 'update check after a look failed'))
      .finally(() => {
        u.active--;
        u.refreshing.delete(name);
        pump(u);
      });
  }
}

const stale = (u: Updates, name: string, now: number): boolean => {
  const r = u.results.get(name);
  return !r || now - r.checkedAt >= STACK_RESULT_TTL_MS;
};

/**
 * Someone looks at these apps: those whose result is missing or older than STACK_RESULT_TTL_MS are checked
 * in the background (the week cache of image answers and the per-registry limit apply), only while
 * UPDATE_CHECK_ENABLED is on.
 */
function look(u: Updates, names: readonly string[]): void {
  if (!enabled(u)) return;
  const now = u.d.now();
  for (const n of names) {
    if (u.refreshing.has(n) || !stale(u, n, now) || now - (u.tried.get(n) ?? Number.NEGATIVE_INFINITY) < RETRY_MS) continue;
    u.refreshing.add(n);
    u.tried.set(n, now);
    u.queued.push(n);
  }
  pump(u);
}

/** Forgets a stack's result and its images' cached answers (after an update, a removal). */
function forget(u: Updates, name: string): void {
  u.results.delete(name);
  u.store.remove(name);
  u.tried.delete(name);
  u.d.checker.forget(u.lastImages.get(name) ?? []);
  u.lastImages.delete(name);
}

function stopTimers(u: Updates): void {
  for (const t of u.timers) clearTimeout(t);
  u.timers = [];
}

/**
 * The per-stack update state that `GET /api/stacks` shows: the last known result with its time, kept
 * across restarts and never waited for. A result older than STACK_RESULT_TTL_MS stays shown with its age;
 * while UPDATE_CHECK_ENABLED is on, a look at it (`look()`) refreshes it in the background. Results come
 * from those refreshes, the daily background round and a user's check.
 */
export function createStackUpdates(d: StackUpdatesDeps) {
  const store = d.store ?? memoryResultsStore();
  const u: Updates = {
    d,
    store,
    results: store.load(),
    lastImages: new Map(),
    timers: [],
    queued: [],
    refreshing: new Set(),
    tried: new Map(),
    active: 0,
  };
  return {
    check: (name: string, opts?: { force?: boolean }) => check(u, name, opts),
    checkAll: (opts?: CheckAllOptions) => checkAll(u, opts),
    /** The last known result with its time; never a registry call. */
    known(name: string): UpdateInfo {
      const r = u.results.get(name);
      return r ? { update: r.state, update_checked_at: new Date(r.checkedAt).toISOString() } : { update: 'unknown', update_checked_at: null };
    },
    look: (names: readonly string[]) => look(u, names),
    forget: (name: string) => forget(u, name),
    /** A first check after `firstDelayMs`, then daily. The timers never keep the process alive. */
    schedule(opts: { firstDelayMs: number; intervalMs?: number }): void {
      stopTimers(u);
      const run = () => runInBackground(u);
      u.timers = [setTimeout(run, opts.firstDelayMs).unref(), setInterval(run, opts.intervalMs ?? DAILY_MS).unref()];
    },
    stop: () => stopTimers(u),
  };
}

export type StackUpdates = ReturnType<typeof createStackUpdates>;
