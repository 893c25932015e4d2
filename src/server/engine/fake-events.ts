import { COMPOSE_PROJECT_LABEL, type ContainerEvent, type ContainerEventStream } from './engine.ts';

/**
 * The event side of the fake engine (fake-engine.ts): like the real engine it keeps what happened, replays it to a
 * stream asked for `since` a time (inclusive, as the engine is), and sends only container events of compose projects
 * with one of the asked actions. `cut` ends the open streams as an engine restart does; `connects` is where the
 * engine records the `since` of every stream asked for.
 */
export interface EventHub {
  open(opts: { actions: string[]; since?: string }): ContainerEventStream;
  /** Records an event and sends it to the open streams; its time is the next tick unless given. */
  publish(e: Omit<ContainerEvent, 'timeNano'> & { timeNano?: string }): void;
  cut(): void;
  connects: (string | undefined)[];
}

/** Event times: a fixed start, one nanosecond per event, so a test's cursor is the same on every run. */
const START_NANO = 1_700_000_000_000_000_000n;

/** `1700000000.000000001` (the engine's `since`) → nanoseconds. */
function nanosOf(since: string): bigint {
  const [s = '0', f = ''] = since.split('.');
  return BigInt(s) * 1_000_000_000n + BigInt(f.padEnd(9, '0').slice(0, 9));
}

export function createEventHub(): EventHub {
  const history: ContainerEvent[] = [];
  const streams = new Set<{ push(e: ContainerEvent): void; end(): void }>();
  const connects: (string | undefined)[] = [];
  let n = 0n;
  return {
    connects,
    open(opts) {
      const wanted = (e: ContainerEvent) => opts.actions.includes(e.action) && e.labels[COMPOSE_PROJECT_LABEL] !== undefined;
      const from = opts.since === undefined ? null : nanosOf(opts.since);
      const queue = from === null ? [] : history.filter((e) => BigInt(e.timeNano) >= from);
      let ended = false;
      let wake: (() => void) | null = null;
      const stream = {
        push(e: ContainerEvent) {
          queue.push(e);
          wake?.();
        },
        end() {
          ended = true;
          streams.delete(stream);
          wake?.();
        },
      };
      streams.add(stream);
      async function* events(): AsyncGenerator<ContainerEvent> {
        while (true) {
          const e = queue.shift();
          if (e) {
            if (wanted(e)) yield e;
            continue;
          }
          if (ended) return;
          await new Promise<void>((r) => {
            wake = r;
          });
        }
      }
      return { events: events(), close: () => stream.end() };
    },
    publish(e) {
      n += 1n;
      const event: ContainerEvent = { ...e, timeNano: e.timeNano ?? String(START_NANO + n) };
      history.push(event);
      for (const s of streams) s.push(event);
    },
    cut() {
      for (const s of [...streams]) s.end();
    },
  };
}

/** A gate for fakes: after hold(), passed() waits until the function hold() returned is called. */
export function createGate(): { hold(): () => void; passed(): Promise<void> } {
  let held: Promise<void> | null = null;
  return {
    hold() {
      let release = () => {};
      held = new Promise<void>((r) => {
        release = () => {
          held = null;
          r();
        };
      });
      return release;
    },
    async passed() {
      if (held) await held;
    },
  };
}
