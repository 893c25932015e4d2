/**
 * The containers of compose projects as a model in memory that the engine's event stream keeps current, so the
 * app list answers without waiting for the engine (issue #18): one listing when the stream connects, then for
 * each batch of events one listing of just the containers they name. The model is dropped, and every caller gets
 * a live listing again, while the stream is down; it reconnects with backoff and lists everything anew (an engine
 * restart loses no change). A full listing every `relistMs` is the safety net against a missed event, and
 * `invalidate()` (Kade changed containers itself: a job ended, an operation was done) makes the next caller wait
 * for a full listing, so Kade's own changes are seen at once.
 */
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { ContainerEventStream, ContainerSummary, Engine } from './engine.ts';

/** Every container action that changes what a listing says of it (state, health, name, ports, existence). */
const ACTIONS = ['create', 'start', 'restart', 'die', 'stop', 'kill', 'oom', 'destroy', 'rename', 'pause', 'unpause', 'update', 'health_status'];

export interface FleetDeps {
  engine: Pick<Engine, 'listContainers' | 'containerEvents'>;
  logger: Logger;
  /** The safety-net full listing; default one minute. */
  relistMs?: number;
  /** Events within this window are fetched with one listing; default 20 ms. */
  batchMs?: number;
  backoff?: { firstMs: number; maxMs: number };
}

export interface Fleet {
  /** The containers of compose projects: from the model while the event stream runs, else one live listing (shared by concurrent callers). */
  list(): Promise<ContainerSummary[]>;
  /** Kade changed containers: the next `list()` waits for a full listing. */
  invalidate(): void;
  /** Whether answers come from the model now (the stream runs and the model is filled). */
  current(): boolean;
  /**
   * A number that changes with every change of the model, for caches of what is computed from a list; null while
   * lists do not come from the model (each one is then a new listing).
   */
  version(): number | null;
  start(): void;
  stop(): void;
}

function sameRecord(a: Record<string, string | null>, b: Record<string, string | null>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/** Everything a listing says of a container but its status text, which ages every minute ("Up 3 minutes"). */
function sameContainer(a: ContainerSummary, b: ContainerSummary): boolean {
  return (
    a.name === b.name &&
    a.image === b.image &&
    a.state === b.state &&
    a.health === b.health &&
    a.project === b.project &&
    a.service === b.service &&
    a.workingDir === b.workingDir &&
    a.created === b.created &&
    a.ports.length === b.ports.length &&
    a.ports.every((p, i) => {
      const q = b.ports[i];
      return q !== undefined && p.host_ip === q.host_ip && p.host_port === q.host_port && p.container_port === q.container_port && p.protocol === q.protocol;
    }) &&
    sameRecord(a.labels, b.labels) &&
    sameRecord(a.networks ?? {}, b.networks ?? {})
  );
}

function sameFleet(model: Map<string, ContainerSummary> | null, list: ContainerSummary[]): boolean {
  if (!model || model.size !== list.length) return false;
  return list.every((c) => {
    const had = model.get(c.id);
    return had !== undefined && sameContainer(had, c);
  });
}

/** The model and the machinery that keeps it current; one per fleet, passed to the steps below. */
interface FleetState {
  d: FleetDeps;
  relistMs: number;
  batchMs: number;
  firstMs: number;
  maxMs: number;
  model: Map<string, ContainerSummary> | null;
  snapshot: ContainerSummary[] | null;
  dirty: boolean;
  stopped: boolean;
  stream: ContainerEventStream | null;
  pending: Set<string>;
  batchTimer: NodeJS.Timeout | null;
  relistTimer: NodeJS.Timeout | null;
  wakeSleep: (() => void) | null;
  /** Every change of the model runs here, one after the other: a full listing never overwrites a newer batch. */
  queue: Promise<unknown>;
  relisting: Promise<ContainerSummary[]> | null;
  /** invalidate() calls so far, and how many there had been when the listing under way was asked. */
  invalidations: number;
  relistingFrom: number;
  live: Promise<ContainerSummary[]> | null;
  changes: number;
}

export function createFleet(d: FleetDeps): Fleet {
  const { firstMs, maxMs } = d.backoff ?? { firstMs: 250, maxMs: 5_000 };
  const s: FleetState = {
    d,
    relistMs: d.relistMs ?? 60_000,
    batchMs: d.batchMs ?? 20,
    firstMs,
    maxMs,
    model: null,
    snapshot: null,
    dirty: false,
    stopped: true,
    stream: null,
    pending: new Set(),
    batchTimer: null,
    relistTimer: null,
    wakeSleep: null,
    queue: Promise.resolve(),
    relisting: null,
    invalidations: 0,
    relistingFrom: 0,
    live: null,
    changes: 0,
  };
  return {
    list: () => list(s),
    invalidate() {
      s.dirty = true;
      s.invalidations++;
    },
    current: () => s.model !== null && !s.dirty,
    version: () => (s.model !== null && !s.dirty ? s.changes : null),
    start: () => start(s),
    stop: () => stop(s),
  };
}

function serial<T>(s: FleetState, fn: () => Promise<T>): Promise<T> {
  const p = s.queue.then(fn, fn);
  s.queue = p.catch(() => undefined);
  return p;
}

function setModel(s: FleetState, m: Map<string, ContainerSummary> | null, changed = true): void {
  if (changed || m === null || s.model === null) s.changes++;
  s.model = m;
  s.snapshot = null;
}

/**
 * One full listing replaces the model; shared by callers that ask while it runs, unless Kade changed something
 * since it was asked: that listing may predate the change, so a new one is queued behind it.
 */
function relist(s: FleetState): Promise<ContainerSummary[]> {
  if (s.relisting && s.relistingFrom === s.invalidations) return s.relisting;
  const from = s.invalidations;
  const p = serial(s, async () => {
    const list = await s.d.engine.listContainers({ composeOnly: true });
    // The minute's safety-net listing mostly finds what the events already told: the version stays, and what
    // callers computed from the model stays valid (only the engine's "Up 3 minutes" texts are new). After
    // invalidate() it always moves: Kade's own change may be one of files that callers cached beside it.
    if (s.stream) setModel(s, new Map(list.map((c) => [c.id, c])), s.dirty || !sameFleet(s.model, list));
    // Still dirty when Kade changed something while this listing was on its way.
    if (s.invalidations === from) s.dirty = false;
    return list;
  }).finally(() => {
    if (s.relisting === p) s.relisting = null;
  });
  s.relisting = p;
  s.relistingFrom = from;
  return p;
}

/** The containers named by events since the last batch, listed again; those the engine no longer has are gone. */
function flush(s: FleetState): void {
  s.batchTimer = null;
  if (s.pending.size === 0 || !s.model) return;
  const ids = [...s.pending];
  s.pending.clear();
  // Past a few hundred ids a filter is no cheaper than a full listing (and the query string grows long).
  if (ids.length > 200) {
    relist(s).catch(() => undefined);
    return;
  }
  void serial(s, () => applyListed(s, ids)).catch((err: unknown) => {
    // The stream most likely ends too; until the next full listing, callers ask the engine.
    s.d.logger.warn({ err: errorMessage(err) }, 'container model: listing of changed containers failed');
    s.dirty = true;
  });
}

/** These containers as the engine lists them now, put into the model. */
async function applyListed(s: FleetState, ids: string[]): Promise<void> {
  if (!s.model) return;
  const got = await s.d.engine.listContainers({ composeOnly: true, ids });
  const model = s.model;
  if (!model) return;
  const byId = new Map(got.map((c) => [c.id, c]));
  for (const id of ids) {
    const c = byId.get(id);
    if (c) model.set(id, c);
    else model.delete(id);
  }
  s.snapshot = null;
  s.changes++;
}

function onEvent(s: FleetState, id: string): void {
  s.pending.add(id);
  // Before the first full listing the ids wait; that listing is older than their events, so they are fetched after it.
  if (s.model && !s.batchTimer) s.batchTimer = setTimeout(() => flush(s), s.batchMs);
}

const sleep = (s: FleetState, ms: number) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    s.wakeSleep = () => {
      clearTimeout(t);
      resolve();
    };
  });

/** Follows the event stream until stopped, reconnecting with backoff. */
async function run(s: FleetState): Promise<void> {
  const round = { delay: s.firstMs, failures: 0 };
  while (!s.stopped) {
    if ((await follow(s, round)) === 'stop') break;
    await sleep(s, round.delay);
    round.delay = Math.min(round.delay * 2, s.maxMs);
  }
}

/** One connection of the event stream: a full listing, then the events until the stream ends; the model goes with it. */
async function follow(s: FleetState, round: { delay: number; failures: number }): Promise<'stop' | 'again'> {
  let pump: Promise<void> | null = null;
  try {
    // The stream first, then the listing: a change between the two is an event the model applies after the listing.
    const stream = await s.d.engine.containerEvents({ actions: ACTIONS });
    s.stream = stream;
    // Stopped while connecting: the finally closes the stream, which would otherwise keep the process alive.
    if (s.stopped) return 'stop';
    pump = (async () => {
      for await (const e of stream.events) onEvent(s, e.id);
    })();
    await relist(s);
    if (!s.stream || s.stopped) return 'stop';
    if (round.failures > 0) s.d.logger.info('container model: engine event stream connected again');
    round.delay = s.firstMs;
    round.failures = 0;
    flush(s);
    await pump;
    if (!s.stopped) throw new Error('the engine ended the event stream');
  } catch (err) {
    round.failures++;
    if (round.failures === 1 && !s.stopped)
      s.d.logger.warn({ err: errorMessage(err) }, 'container model: engine event stream lost; lists ask the engine meanwhile');
  } finally {
    s.stream?.close();
    s.stream = null;
    await pump?.catch(() => undefined);
    setModel(s, null);
    s.pending.clear();
  }
  return s.stopped ? 'stop' : 'again';
}

async function list(s: FleetState): Promise<ContainerSummary[]> {
  if (s.model && !s.dirty) {
    s.snapshot ??= [...s.model.values()];
    return s.snapshot;
  }
  if (s.model) return relist(s);
  s.live ??= s.d.engine.listContainers({ composeOnly: true }).finally(() => {
    s.live = null;
  });
  return s.live;
}

function start(s: FleetState): void {
  if (!s.stopped) return;
  s.stopped = false;
  void run(s);
  s.relistTimer = setInterval(() => {
    if (s.model) relist(s).catch(() => undefined);
  }, s.relistMs);
  s.relistTimer.unref();
}

function stop(s: FleetState): void {
  s.stopped = true;
  if (s.relistTimer) clearInterval(s.relistTimer);
  if (s.batchTimer) clearTimeout(s.batchTimer);
  s.stream?.close();
  s.wakeSleep?.();
}
