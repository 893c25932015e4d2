/**
 * Stopped containers, seen from the engine's event stream (never by polling lists): a die, stop or oom of a
 * container of an installed app enters the stopped state, its start leaves it. A stop Kade performs itself is not
 * a message: the decision waits `graceMs`, then asks `expected` (Kade's job holds the app's slot, or Kade's own
 * operation named the app or container just now). The stream resumes from the last event it handled (kept in the
 * database), so a restart of Kade neither repeats nor loses an event; it reconnects with backoff when the engine goes.
 */
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { wakeableSleep } from '../core/wakeable-sleep.ts';
import { sinceOf } from '../engine/docker-events.ts';
import { COMPOSE_PROJECT_LABEL, type ContainerEvent, type ContainerEventStream, type Engine } from '../engine/engine.ts';
import type { NotifyRequest } from './notifier.ts';

const STOPS = ['die', 'stop', 'oom'];
const ACTIONS = [...STOPS, 'start'];
/** A cursor older than this is not replayed: after a long downtime only the last hour counts. */
const MAX_REPLAY_NS = 3_600n * 1_000_000_000n;

export interface ContainerWatchDeps {
  engine: Pick<Engine, 'containerEvents'>;
  /** The installed app a compose project belongs to; null for containers Kade does not manage. */
  stackOfProject: (project: string) => string | null;
  /** Whether Kade itself stopped it: its job holds the app's slot, or its own operation named the app or container. */
  expected: (stack: string, container: string, atMs: number) => boolean;
  emit: (r: NotifyRequest) => void;
  /** The timeNano of the last handled event. */
  cursor: { get(): string | null; set(timeNano: string): void };
  logger: Logger;
  clock: () => Date;
  graceMs?: number;
  backoff?: { firstMs: number; maxMs: number };
}

/** How long after a stop Kade's own operation may end and still count as its cause (a compose stop waits up to 10 s per container). */
export const OWN_STOP_WINDOW_MS = 15_000;

/**
 * Whether a stop at `atMs` was caused by one of Kade's own operations, given when each operation on the app or the
 * container ended (`marks`): an operation ends after the stops it causes, so only one that ended at or after the stop,
 * and within the window, counts. An operation that ended before the stop (a start a moment earlier) does not.
 */
export function causedByOwnOperation(marks: readonly (number | undefined)[], atMs: number): boolean {
  // The engine and Kade read the same host's clock; the event's time is rounded down to the millisecond.
  return marks.some((m) => m !== undefined && atMs <= m && m - atMs <= OWN_STOP_WINDOW_MS);
}

function describe(e: ContainerEvent, stack: string): string {
  const why = e.action === 'oom' ? 'ran out of memory' : e.exitCode !== null ? `exit code ${e.exitCode}` : e.action;
  return `The container ${e.name} of the app ${stack} stopped (${why}) without Kade stopping it.`;
}

/** The watch's state: the decisions under way per container, the stream and the reconnect loop. */
interface Watch {
  d: ContainerWatchDeps;
  graceMs: number;
  firstMs: number;
  maxMs: number;
  chains: Map<string, Promise<void>>;
  stopped: boolean;
  current: ContainerEventStream | null;
  wakeSleep: (() => void) | null;
  loop: Promise<void> | null;
}

/** Events of one container are decided in order; containers side by side. */
function enqueue(w: Watch, id: string, work: () => Promise<void>): void {
  const next = (w.chains.get(id) ?? Promise.resolve())
    .then(work)
    .catch((err: unknown) => w.d.logger.warn({ err: errorMessage(err) }, 'container event not handled'));
  w.chains.set(id, next);
  void next.finally(() => w.chains.get(id) === next && w.chains.delete(id));
}

function handle(w: Watch, e: ContainerEvent): void {
  const { d } = w;
  const project = e.labels[COMPOSE_PROJECT_LABEL];
  const stack = project ? d.stackOfProject(project) : null;
  if (!stack) {
    d.cursor.set(e.timeNano);
    return;
  }
  const atMs = Number(BigInt(e.timeNano) / 1_000_000n);
  if (e.action === 'start') {
    enqueue(w, e.id, async () => {
      d.emit({ kind: 'container_stopped', subject: e.name, message: `The container ${e.name} of the app ${stack} runs again.`, state: 'off' });
      d.cursor.set(e.timeNano);
    });
    return;
  }
  const busyAtOnce = d.expected(stack, e.name, atMs);
  enqueue(w, e.id, async () => {
    await new Promise((r) => setTimeout(r, w.graceMs));
    if (!busyAtOnce && !d.expected(stack, e.name, atMs)) d.emit({ kind: 'container_stopped', subject: e.name, message: describe(e, stack), state: 'on' });
    d.cursor.set(e.timeNano);
  });
}

function since(d: ContainerWatchDeps): string {
  const now = BigInt(d.clock().getTime()) * 1_000_000n;
  const stored = d.cursor.get();
  const from = stored && /^\d+$/.test(stored) ? BigInt(stored) : now;
  return (from < now - MAX_REPLAY_NS ? now - MAX_REPLAY_NS : from).toString();
}

/** The stream opened from the cursor (and the event the cursor names); null when stopped while connecting. */
async function connect(w: Watch): Promise<{ stream: ContainerEventStream; handled: string | null } | null> {
  const from = since(w.d);
  const handled = w.d.cursor.get();
  const stream = await w.d.engine.containerEvents({ actions: ACTIONS, since: sinceOf(from) });
  w.current = stream;
  // Stopped while connecting: nothing else closes this stream, and an open one keeps stop() and the process waiting.
  if (w.stopped) {
    stream.close();
    return null;
  }
  return { stream, handled };
}

/** The stream's events handled until it ends or the watch stops. */
async function drain(w: Watch, stream: ContainerEventStream, handled: string | null): Promise<void> {
  for await (const e of stream.events) {
    if (w.stopped) break;
    // The engine's `since` is inclusive: the event the cursor names was handled already.
    if (handled !== null && /^\d+$/.test(handled) && BigInt(e.timeNano) <= BigInt(handled)) continue;
    if (STOPS.includes(e.action) || e.action === 'start') handle(w, e);
  }
}

async function run(w: Watch): Promise<void> {
  let delay = w.firstMs;
  let failures = 0;
  while (!w.stopped) {
    try {
      const c = await connect(w);
      if (!c) break;
      if (failures > 0) w.d.logger.info('engine event stream connected again');
      delay = w.firstMs;
      failures = 0;
      await drain(w, c.stream, c.handled);
      if (!w.stopped) w.d.logger.warn('engine event stream ended; reconnecting');
    } catch (err) {
      failures += 1;
      if (!w.stopped && failures === 1) w.d.logger.warn({ err: errorMessage(err) }, 'engine event stream not available; retrying');
    }
    w.current = null;
    if (w.stopped) break;
    await wakeableSleep(w, delay);
    delay = Math.min(delay * 2, w.maxMs);
  }
}

export function createContainerWatch(d: ContainerWatchDeps) {
  const { firstMs, maxMs } = d.backoff ?? { firstMs: 1_000, maxMs: 30_000 };
  const w: Watch = { d, graceMs: d.graceMs ?? 2_000, firstMs, maxMs, chains: new Map(), stopped: true, current: null, wakeSleep: null, loop: null };
  return {
    start(): void {
      if (!w.stopped) return;
      w.stopped = false;
      w.loop = run(w);
    },
    /** Ends the stream and the reconnects; waits for decisions under way. */
    async stop(): Promise<void> {
      w.stopped = true;
      w.current?.close();
      w.wakeSleep?.();
      await w.loop;
      await Promise.allSettled([...w.chains.values()]);
    },
    /** Waits for decisions under way (tests). */
    async idle(): Promise<void> {
      while (w.chains.size > 0) await Promise.allSettled([...w.chains.values()]);
    },
  };
}
