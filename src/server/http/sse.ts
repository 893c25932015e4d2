import type { Readable } from 'node:stream';
import type { Context } from 'hono';

/** One server-sent event. `event` and `id` never hold a line break (they are Kade's own words and numbers). */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * What a followed stream gives: `next` waits until there are events and gives them, or null after the
 * last; it is called only while the client keeps up. `close` releases the source (an engine stream, a
 * watch) and makes a waiting `next` give null.
 */
export interface SseFeed {
  next(): Promise<SseEvent[] | null>;
  close(): void;
}

export interface FollowLimits {
  /** Bytes of events that may wait for one client; past it the source is no longer read. */
  maxPendingBytes: number;
  /** How long a client may leave that much unread before it is cut off. */
  stallMs: number;
  /** After the cut-off, how long the final event may wait for the client before the connection is closed. */
  closeGraceMs: number;
}

/**
 * 1 MiB is thousands of log lines: a client that reads at all never gets near it, and even a hundred
 * stalled clients hold no more than 100 MiB. 30 s outlasts a browser tab's pause or a slow link's hiccup;
 * a reader gone for longer is a stalled socket, not a person.
 */
export const FOLLOW_LIMITS: FollowLimits = { maxPendingBytes: 1024 * 1024, stallMs: 30_000, closeGraceMs: 5_000 };

/** The last event a client that did not keep up gets (when it reads again), as documented on the routes. */
export const SLOW_READER_END: SseEvent = { event: 'end', data: JSON.stringify({ reason: 'slow_reader' }) };

/** How a followed stream ends for a slow client, for the route descriptions. */
export const SLOW_READER_DOC = `A client that leaves ${FOLLOW_LIMITS.maxPendingBytes / 1024 / 1024} MiB unread for ${FOLLOW_LIMITS.stallMs / 1000} s is cut off: the source is closed and the stream ends with \`event: end\` and \`data: ${SLOW_READER_END.data}\`.`;

const encoder = new TextEncoder();

function encode(events: SseEvent[]): Uint8Array {
  let text = '';
  for (const e of events) {
    const data = e.data
      .split(/\r\n|\r|\n/)
      .map((l) => `data: ${l}`)
      .join('\n');
    text += `event: ${e.event}\n${data}\n${e.id === undefined ? '' : `id: ${e.id}\n`}\n`;
  }
  return encoder.encode(text);
}

/** The node-server response under a request, when there is one (not for in-process `app.request`). */
function nodeResponse(c: Context): { writableFinished: boolean; destroy(): void } | undefined {
  const env = c.env as { outgoing?: { writableFinished?: unknown; destroy?: unknown } } | undefined;
  const out = env?.outgoing;
  return out && typeof out.destroy === 'function' ? (out as { writableFinished: boolean; destroy(): void }) : undefined;
}

/**
 * A feed as a `text/event-stream` answer with bounded buffering: the feed is read only while less than
 * `maxPendingBytes` wait for the client (backpressure reaches the source); a client that leaves them
 * unread for `stallMs` is cut off (the feed is closed, `SLOW_READER_END` queued, the connection closed
 * if that is still unread after `closeGraceMs`). A client that goes away closes the feed at once.
 */
export function sseFollow(c: Context, feed: SseFeed, limits: FollowLimits = FOLLOW_LIMITS): Response {
  let stallTimer: NodeJS.Timeout | undefined;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(stallTimer);
    feed.close();
  };
  const hangUp = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    const out = nodeResponse(c);
    if (out) {
      if (!out.writableFinished) out.destroy();
      return;
    }
    // Without a socket of its own, dropping what waits ends the answer; a stream already read is not touched.
    controller.error(new Error('the client did not read the event stream'));
  };
  const cutOff = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (finished) return;
    finish();
    controller.enqueue(encode([SLOW_READER_END]));
    controller.close();
    setTimeout(() => hangUp(controller), limits.closeGraceMs).unref();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        clearTimeout(stallTimer);
        let events: SseEvent[] | null;
        try {
          events = finished ? null : await feed.next();
        } catch {
          events = null;
        }
        if (finished) return;
        if (events === null) {
          finish();
          controller.close();
          return;
        }
        if (events.length > 0) controller.enqueue(encode(events));
        if ((controller.desiredSize ?? 0) <= 0) stallTimer = setTimeout(() => cutOff(controller), limits.stallMs);
      },
      cancel: finish,
    },
    { highWaterMark: limits.maxPendingBytes, size: (chunk) => chunk.byteLength },
  );
  return c.newResponse(body, 200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'Transfer-Encoding': 'chunked',
  });
}

/**
 * A text stream as a feed of `line` events and a final `end` (empty data). Each call gives what the
 * stream holds now, so a batch is at most its buffer; the stream is read only when asked.
 */
export function lineFeed(source: Readable): SseFeed {
  source.setEncoding('utf8');
  let rest = '';
  let done = false;
  let wake: () => void = () => undefined;
  // A broken source ends the feed (it is destroyed then); the error itself has no one to go to.
  source.on('error', () => wake());
  const waitForMore = () =>
    new Promise<void>((resolve) => {
      const events = ['readable', 'end', 'close', 'error'] as const;
      const on = () => {
        for (const e of events) source.off(e, on);
        resolve();
      };
      for (const e of events) source.on(e, on);
      wake = on;
    });
  return {
    async next() {
      for (;;) {
        if (done) return null;
        const chunk = source.read() as string | null;
        if (chunk !== null) {
          const lines = (rest + chunk).split('\n');
          rest = lines.pop() ?? '';
          if (lines.length > 0) return lines.map((l) => ({ event: 'line', data: l.endsWith('\r') ? l.slice(0, -1) : l }));
          continue;
        }
        if (source.readableEnded || source.destroyed) {
          done = true;
          const last = rest === '' ? [] : [{ event: 'line', data: rest }];
          return [...last, { event: 'end', data: '' }];
        }
        await waitForMore();
      }
    },
    close() {
      done = true;
      source.destroy();
      wake();
    },
  };
}
