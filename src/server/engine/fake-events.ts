import type { ContainerEvent, ContainerEventStream, Engine } from './engine.ts';

/**
 * A fake of `Engine.containerEvents` for unit tests: `push` delivers an event to the open stream, `cut` ends it as
 * an engine restart does, `down` makes the next connections fail, `hold` keeps the next connections waiting until
 * the function it returns is called. `connects` records each `since` asked for.
 */
export function createFakeEvents(): Pick<Engine, 'containerEvents'> & {
  push(e: Partial<ContainerEvent> & { action: string; name: string }): void;
  cut(): void;
  down(on: boolean): void;
  hold(): () => void;
  connects: (string | undefined)[];
} {
  let queue: ContainerEvent[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  let isDown = false;
  let n = 0;
  const gate = createGate();
  const connects: (string | undefined)[] = [];
  return {
    connects,
    async containerEvents(opts) {
      connects.push(opts.since);
      await gate.passed();
      if (isDown) throw new Error('connect ECONNREFUSED /var/run/docker.sock');
      ended = false;
      queue = [];
      async function* events(): AsyncGenerator<ContainerEvent> {
        while (true) {
          const e = queue.shift();
          if (e) {
            if (opts.actions.includes(e.action)) yield e;
            continue;
          }
          if (ended) return;
          await new Promise<void>((r) => {
            wake = r;
          });
        }
      }
      const stream: ContainerEventStream = {
        events: events(),
        close() {
          ended = true;
          wake?.();
        },
      };
      return stream;
    },
    push(e) {
      n += 1;
      queue.push({ id: e.id ?? e.name, labels: {}, exitCode: null, timeNano: e.timeNano ?? String(1_700_000_000_000_000_000n + BigInt(n)), ...e });
      wake?.();
    },
    cut() {
      ended = true;
      wake?.();
    },
    down(on) {
      isDown = on;
    },
    hold: gate.hold,
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
