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

export function createFleet(d: FleetDeps): Fleet {
  const relistMs = d.relistMs ?? 60_000;
  const batchMs = d.batchMs ?? 20;
  const { firstMs, maxMs } = d.backoff ?? { firstMs: 250, maxMs: 5_000 };
  let model: Map<string, ContainerSummary> | null = null;
  let snapshot: ContainerSummary[] | null = null;
  let dirty = false;
  let stopped = true;
  let stream: ContainerEventStream | null = null;
  const pending = new Set<string>();
  let batchTimer: NodeJS.Timeout | null = null;
  let relistTimer: NodeJS.Timeout | null = null;
  let wakeSleep: (() => void) | null = null;
  /** Every change of the model runs here, one after the other: a full listing never overwrites a newer batch. */
  let queue: Promise<unknown> = Promise.resolve();
  let relisting: Promise<ContainerSummary[]> | null = null;
  /** invalidate() calls so far, and how many there had been when the listing under way was asked. */
  let invalidations = 0;
  let relistingFrom = 0;
  let live: Promise<ContainerSummary[]> | null = null;

  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = queue.then(fn, fn);
    queue = p.catch(() => undefined);
    return p;
  };

  let changes = 0;
  const setModel = (m: Map<string, ContainerSummary> | null, changed = true) => {
    if (changed || m === null || model === null) changes++;
    model = m;
    snapshot = null;
  };

  /**
   * One full listing replaces the model; shared by callers that ask while it runs, unless Kade changed something
   * since it was asked: that listing may predate the change, so a new one is queued behind it.
   */
  function relist(): Promise<ContainerSummary[]> {
    if (relisting && relistingFrom === invalidations) return relisting;
    const from = invalidations;
    const p = serial(async () => {
      const list = await d.engine.listContainers({ composeOnly: true });
      // The minute's safety-net listing mostly finds what the events already told: the version stays, and what
      // callers computed from the model stays valid (only the engine's "Up 3 minutes" texts are new). After
      // invalidate() it always moves: Kade's own change may be one of files that callers cached beside it.
      if (stream) setModel(new Map(list.map((c) => [c.id, c])), dirty || !sameFleet(model, list));
      // Still dirty when Kade changed something while this listing was on its way.
      if (invalidations === from) dirty = false;
      return list;
    }).finally(() => {
      if (relisting === p) relisting = null;
    });
    relisting = p;
    relistingFrom = from;
    return p;
  }

  /** The containers named by events since the last batch, listed again; those the engine no longer has are gone. */
  function flush(): void {
    batchTimer = null;
    if (pending.size === 0 || !model) return;
    const ids = [...pending];
    pending.clear();
    // Past a few hundred ids a filter is no cheaper than a full listing (and the query string grows long).
    if (ids.length > 200) {
      relist().catch(() => undefined);
      return;
    }
    void serial(async () => {
      if (!model) return;
      const got = await d.engine.listContainers({ composeOnly: true, ids });
      if (!model) return;
      const byId = new Map(got.map((c) => [c.id, c]));
      for (const id of ids) {
        const c = byId.get(id);
        if (c) model.set(id, c);
        else model.delete(id);
      }
      snapshot = null;
      changes++;
    }).catch((err: unknown) => {
      // The stream most likely ends too; until the next full listing, callers ask the engine.
      d.logger.warn({ err: errorMessage(err) }, 'container model: listing of changed containers failed');
      dirty = true;
    });
  }

  function onEvent(id: string): void {
    pending.add(id);
    // Before the first full listing the ids wait; that listing is older than their events, so they are fetched after it.
    if (model && !batchTimer) batchTimer = setTimeout(flush, batchMs);
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      wakeSleep = () => {
        clearTimeout(t);
        resolve();
      };
    });

  async function run(): Promise<void> {
    let delay = firstMs;
    let failures = 0;
    while (!stopped) {
      let pump: Promise<void> | null = null;
      try {
        // The stream first, then the listing: a change between the two is an event the model applies after the listing.
        stream = await d.engine.containerEvents({ actions: ACTIONS });
        // Stopped while connecting: the finally closes the stream, which would otherwise keep the process alive.
        if (stopped) break;
        const events = stream.events;
        pump = (async () => {
          for await (const e of events) onEvent(e.id);
        })();
        await relist();
        if (!stream || stopped) break;
        if (failures > 0) d.logger.info('container model: engine event stream connected again');
        delay = firstMs;
        failures = 0;
        flush();
        await pump;
        if (!stopped) throw new Error('the engine ended the event stream');
      } catch (err) {
        failures++;
        if (failures === 1 && !stopped) d.logger.warn({ err: errorMessage(err) }, 'container model: engine event stream lost; lists ask the engine meanwhile');
      } finally {
        stream?.close();
        stream = null;
        await pump?.catch(() => undefined);
        setModel(null);
        pending.clear();
      }
      if (stopped) break;
      await sleep(delay);
      delay = Math.min(delay * 2, maxMs);
    }
  }

  return {
    async list() {
      if (model && !dirty) {
        snapshot ??= [...model.values()];
        return snapshot;
      }
      if (model) return relist();
      live ??= d.engine.listContainers({ composeOnly: true }).finally(() => {
        live = null;
      });
      return live;
    },
    invalidate() {
      dirty = true;
      invalidations++;
    },
    current: () => model !== null && !dirty,
    version: () => (model !== null && !dirty ? changes : null),
    start() {
      if (!stopped) return;
      stopped = false;
      void run();
      relistTimer = setInterval(() => {
        if (model) relist().catch(() => undefined);
      }, relistMs);
      relistTimer.unref();
    },
    stop() {
      stopped = true;
      if (relistTimer) clearInterval(relistTimer);
      if (batchTimer) clearTimeout(batchTimer);
      stream?.close();
      wakeSleep?.();
    },
  };
}
