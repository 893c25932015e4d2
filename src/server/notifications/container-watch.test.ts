import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../core/logger.ts';
import { COMPOSE_PROJECT_LABEL } from '../engine/engine.ts';
import { createFakeEngine } from '../engine/fake-engine.ts';
import { causedByOwnOperation, createContainerWatch, OWN_STOP_WINDOW_MS } from './container-watch.ts';
import type { NotifyRequest } from './notifier.ts';

const logger = createLogger('silent');
const labels = (project: string) => ({ [COMPOSE_PROJECT_LABEL]: project });
const settle = () => new Promise((r) => setTimeout(r, 30));

function setup(opts: { busy?: Set<string> } = {}) {
  const engine = createFakeEngine();
  const asked: NotifyRequest[] = [];
  let cursor: string | null = null;
  const watch = createContainerWatch({
    engine,
    stackOfProject: (p) => (p === 'blog' ? 'blog' : null),
    expected: (stack) => opts.busy?.has(stack) ?? false,
    emit: (r) => asked.push(r),
    cursor: { get: () => cursor, set: (v) => (cursor = v) },
    logger,
    // Near the fake's event times, so a stored cursor is within the replay window.
    clock: () => new Date(1_700_000_100_000),
    graceMs: 0,
    backoff: { firstMs: 5, maxMs: 20 },
  });
  return { engine, asked, watch, cursor: () => cursor };
}

test('a die of a managed container enters the stopped state; its start leaves it; unmanaged ones are ignored', async () => {
  const { engine, asked, watch } = setup();
  watch.start();
  await settle();
  engine.push({ action: 'die', name: 'blog-web-1', labels: labels('blog'), exitCode: 137 });
  engine.push({ action: 'die', name: 'other-web-1', labels: labels('other') });
  engine.push({ action: 'start', name: 'blog-web-1', labels: labels('blog') });
  await settle();
  await watch.idle();
  assert.deepEqual(
    asked.map((r) => [r.kind, r.subject, r.state]),
    [
      ['container_stopped', 'blog-web-1', 'on'],
      ['container_stopped', 'blog-web-1', 'off'],
    ],
  );
  assert.match(asked[0]?.message ?? '', /app blog stopped \(exit code 137\)/);
  await watch.stop();
});

test("a stop while Kade's job holds the app is not a message", async () => {
  const { engine, asked, watch } = setup({ busy: new Set(['blog']) });
  watch.start();
  await settle();
  engine.push({ action: 'die', name: 'blog-web-1', labels: labels('blog') });
  await settle();
  await watch.idle();
  assert.deepEqual(asked, []);
  await watch.stop();
});

test('the stream reconnects after the engine went away, resuming after the last handled event', async () => {
  const { engine, asked, watch, cursor } = setup();
  watch.start();
  await settle();
  engine.push({ action: 'die', name: 'blog-web-1', labels: labels('blog'), timeNano: '1700000000123456789' });
  await settle();
  await watch.idle();
  assert.equal(cursor(), '1700000000123456789');
  engine.down(true);
  engine.cut();
  await new Promise((r) => setTimeout(r, 60));
  engine.down(false);
  await new Promise((r) => setTimeout(r, 60));
  assert.ok(engine.connects.length >= 3, `connects: ${engine.connects.length}`);
  assert.equal(engine.connects.at(-1), '1700000000.123456789');
  engine.push({ action: 'start', name: 'blog-web-1', labels: labels('blog'), timeNano: '1700000001000000000' });
  await settle();
  await watch.idle();
  assert.deepEqual(
    asked.map((r) => r.state),
    ['on', 'off'],
  );
  await watch.stop();
});

test('a stop while the stream is still connecting closes the stream once it opens, and stop() returns', async () => {
  const { engine, watch } = setup();
  const release = engine.hold('containerEvents');
  watch.start();
  await settle();
  const stopped = watch.stop();
  release();
  const outcome = await Promise.race([stopped.then(() => 'stopped'), new Promise((r) => setTimeout(() => r('still waiting'), 1000))]);
  assert.equal(outcome, 'stopped');
  assert.equal(engine.connects.length, 1, 'no reconnect after the stop');
});

test("Kade's own operation causes the stops before it ended, not a stop after it", () => {
  const stop = 1_000_000;
  assert.equal(causedByOwnOperation([stop + 2_000], stop), true, 'a stop operation that ended 2 s after the die');
  assert.equal(causedByOwnOperation([undefined, stop + 100], stop), true, 'the container operation');
  assert.equal(causedByOwnOperation([stop - 3_000], stop), false, 'a start that ended 3 s before a kill');
  assert.equal(causedByOwnOperation([stop - 1], stop), false, 'a start that ended just before a kill');
  assert.equal(causedByOwnOperation([stop + OWN_STOP_WINDOW_MS + 1], stop), false, 'too long after');
  assert.equal(causedByOwnOperation([undefined, undefined], stop), false);
});
