import { createInterface } from 'node:readline';
import { COMPOSE_PROJECT_LABEL, type ContainerEvent, type ContainerEventStream } from './engine.ts';
import type { EngineApi } from './engine-api.ts';

interface RawEvent {
  Type?: string;
  Action?: string;
  status?: string;
  id?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
  time?: number;
  timeNano?: number | string;
}

/** Reads one line of the engine's event stream; null for anything that is not a container event. */
export function parseContainerEvent(line: string): ContainerEvent | null {
  let raw: RawEvent;
  try {
    raw = JSON.parse(line) as RawEvent;
  } catch {
    return null;
  }
  if (raw.Type !== 'container' || !raw.Actor?.ID) return null;
  const attrs = { ...(raw.Actor.Attributes ?? {}) };
  const exit = attrs.exitCode;
  const name = (attrs.name ?? raw.Actor.ID).replace(/^\//, '');
  delete attrs.name;
  delete attrs.image;
  delete attrs.exitCode;
  // Read from the text: as a JSON number it is past 2^53 and rounds by up to 128 ns, which can put a cursor after its
  // own event (the engine's `since` is inclusive) or before the next one.
  const exact = /"timeNano":\s*(\d+)/.exec(line)?.[1];
  const timeNano = exact ?? (raw.timeNano !== undefined ? String(raw.timeNano) : `${raw.time ?? 0}000000000`);
  return {
    action: (raw.Action ?? raw.status ?? '').split(':')[0] ?? '',
    id: raw.Actor.ID,
    name,
    labels: attrs,
    timeNano,
    exitCode: exit !== undefined && /^\d+$/.test(exit) ? Number(exit) : null,
  };
}

/** `1732630000123456789` → `1732630000.123456789`: the engine's `since` with the nanoseconds kept. */
export function sinceOf(timeNano: string): string {
  const s = timeNano.padStart(10, '0');
  return `${s.slice(0, -9) || '0'}.${s.slice(-9)}`;
}

/** The Docker events endpoint, filtered in the engine to container events of compose projects. */
export async function dockerContainerEvents(api: EngineApi, opts: { actions: string[]; since?: string }): Promise<ContainerEventStream> {
  const stream = await api.stream('GET', '/events', {
    query: { filters: { type: ['container'], event: opts.actions, label: [COMPOSE_PROJECT_LABEL] }, since: opts.since },
  });
  // A watch in the background never keeps the process alive: the HTTP server does that. A stream a stop raced past
  // (seen under a busy engine: one open, unread, after close()) would otherwise hold an ended Kade forever.
  stream.socket?.unref();
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  async function* events(): AsyncGenerator<ContainerEvent> {
    for await (const line of lines) {
      const e = parseContainerEvent(line);
      if (e) yield e;
    }
  }
  return {
    events: events(),
    close() {
      lines.close();
      stream.destroy();
    },
  };
}
