import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { Hono } from 'hono';
import { type FollowLimits, lineFeed, type SseEvent, type SseFeed, sseFollow } from './sse.ts';

const LINE = 'x'.repeat(1000);

/** A feed of endless chatty lines that counts what it gave and says when it is closed. */
function chattyFeed() {
  let given = 0;
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const feed: SseFeed = {
    async next() {
      given += 1;
      return [{ event: 'line', data: LINE }];
    },
    close: () => markClosed(),
  };
  return { feed, closed, given: () => given };
}

/** The answer of a route that follows `feed`, as an in-process request (no socket of its own). */
async function follow(feed: SseFeed, limits: FollowLimits): Promise<Response> {
  const app = new Hono();
  app.get('/', (c) => sseFollow(c, feed, limits));
  return app.request('/');
}

function events(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = [...block.matchAll(/^data: (.*)$/gm)].map((m) => m[1]).join('\n');
      return { event, data };
    });
}

test('a client that reads gets every line of the source and the end', async () => {
  const source = new PassThrough();
  const res = await follow(lineFeed(source), { maxPendingBytes: 1024, stallMs: 60_000, closeGraceMs: 60_000 });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  source.write('one\r\ntw');
  source.write('o\n');
  source.end('three');
  assert.deepEqual(events(await res.text()), [
    { event: 'line', data: 'one' },
    { event: 'line', data: 'two' },
    { event: 'line', data: 'three' },
    { event: 'end', data: '' },
  ]);
});

test('a client that does not read: the source is read up to the cap only, then cut off with a slow_reader end', async () => {
  const chatty = chattyFeed();
  const cap = 64 * 1024;
  const res = await follow(chatty.feed, { maxPendingBytes: cap, stallMs: 50, closeGraceMs: 60_000 });
  await chatty.closed;
  // What the feed gave is what waits for the client: never more than the cap and one event.
  assert.ok(chatty.given() * LINE.length <= cap + LINE.length, `the feed gave ${chatty.given()} lines`);
  const got = events(await res.text());
  assert.equal(got.length, chatty.given() + 1);
  assert.deepEqual(got.at(-1), { event: 'end', data: '{"reason":"slow_reader"}' });
});

test('a client still not reading after the grace loses the connection', async () => {
  const chatty = chattyFeed();
  const res = await follow(chatty.feed, { maxPendingBytes: 8 * 1024, stallMs: 20, closeGraceMs: 20 });
  await chatty.closed;
  // The grace timer was set before this one, so it has run when this one does.
  await new Promise((resolve) => setTimeout(resolve, 40));
  await assert.rejects(res.text(), /did not read/);
});

test('a client that goes away closes the source at once', async () => {
  const source = new PassThrough();
  const res = await follow(lineFeed(source), { maxPendingBytes: 1024, stallMs: 60_000, closeGraceMs: 60_000 });
  source.write('one\n');
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  await reader.cancel();
  assert.equal(source.destroyed, true);
});
