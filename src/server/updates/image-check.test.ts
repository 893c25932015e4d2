import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createImageChecker } from './image-check.ts';
import type { ImageRef } from './image-ref.ts';
import { createKeyedLimiter } from './limiter.ts';
import type { RemoteDigest } from './registry-client.ts';
import { HOUR_MS, spreadMs, WEEK_MS } from './result-cache.ts';

const OLD = `sha256:${'1'.repeat(64)}`;
const NEW = `sha256:${'2'.repeat(64)}`;

function setup(opts: { local?: Record<string, string[] | null> } = {}) {
  let now = 1_000_000;
  let remote: RemoteDigest = { ok: true, digest: OLD };
  const asked: string[] = [];
  const local = opts.local ?? { 'ghcr.io/o/app:1': [`ghcr.io/o/app@${OLD}`] };
  const checker = createImageChecker({
    local: async (image) => local[image] ?? null,
    remote: async (ref: ImageRef) => {
      asked.push(`${ref.registry}/${ref.repository}:${ref.tag}`);
      return remote;
    },
    limiter: createKeyedLimiter(4),
    now: () => now,
  });
  return {
    checker,
    asked,
    advance: (ms: number) => {
      now += ms;
    },
    setRemote: (r: RemoteDigest) => {
      remote = r;
    },
  };
}

test('equal digests are current, different ones an update', async () => {
  const s = setup();
  assert.equal((await s.checker.check('ghcr.io/o/app:1')).state, 'current');
  s.setRemote({ ok: true, digest: NEW });
  const r = await s.checker.check('ghcr.io/o/app:1', { force: true });
  assert.deepEqual([r.state, r.reason, r.cached], ['update', 'compared', true]);
});

test('locally built, not pulled and pinned images are decided without a registry', async () => {
  const s = setup({ local: { 'kade-test/busybox:1': [], x: [] } });
  assert.deepEqual(
    [(await s.checker.check('kade-test/busybox:1')).reason, (await s.checker.check('ghcr.io/o/missing:1')).reason],
    ['local_build', 'not_pulled'],
  );
  assert.equal((await s.checker.check(`nginx@sha256:${'3'.repeat(64)}`)).reason, 'pinned');
  assert.equal((await s.checker.check('Bad Ref')).reason, 'invalid_ref');
  assert.deepEqual(s.asked, []);
});

test('a success is cached a week with a per-image spread, keyed by name plus tag', async () => {
  const s = setup();
  await s.checker.check('ghcr.io/o/app:1');
  s.setRemote({ ok: true, digest: NEW });
  const ttl = WEEK_MS + spreadMs('ghcr.io/o/app:1', 12);
  s.advance(ttl - 1);
  assert.equal((await s.checker.check('ghcr.io/o/app:1')).state, 'current', 'still the cached answer');
  assert.equal(s.asked.length, 1);
  s.advance(1);
  assert.equal((await s.checker.check('ghcr.io/o/app:1')).state, 'update', 'expired: asked again');
  assert.equal(s.asked.length, 2);
});

test('the spread is whole hours within ±12 and differs between images', () => {
  const keys = Array.from({ length: 50 }, (_, i) => `docker.io/library/app${i}:latest`);
  const spreads = keys.map((k) => spreadMs(k, 12));
  for (const v of spreads) assert.ok(Math.abs(v) <= 12 * HOUR_MS && v % HOUR_MS === 0);
  assert.ok(new Set(spreads).size > 10, 'spread varies per image');
  assert.equal(spreadMs(keys[0] ?? '', 12), spreads[0], 'and is stable for one image');
});

test('failures are never cached', async () => {
  const s = setup();
  s.setRemote({ ok: false, reason: 'ghcr.io not reachable' });
  const r = await s.checker.check('ghcr.io/o/app:1');
  assert.deepEqual([r.state, r.reason, r.cached, r.detail], ['unknown', 'registry', false, 'ghcr.io not reachable']);
  assert.equal(s.checker.cachedKeys(), 0);
  s.setRemote({ ok: true, digest: OLD });
  assert.equal((await s.checker.check('ghcr.io/o/app:1')).state, 'current');
  assert.equal(s.asked.length, 2, 'the failure did not stop the next check from asking');
});

test('a cached answer counts only while the local digest is the same', async () => {
  const local: Record<string, string[]> = { 'ghcr.io/o/app:1': [`ghcr.io/o/app@${OLD}`] };
  const s = setup({ local });
  s.setRemote({ ok: true, digest: NEW });
  assert.equal((await s.checker.check('ghcr.io/o/app:1')).state, 'update');
  local['ghcr.io/o/app:1'] = [`ghcr.io/o/app@${NEW}`];
  assert.equal((await s.checker.check('ghcr.io/o/app:1')).state, 'current', 'pulled since: asked again');
  assert.equal(s.asked.length, 2);
});
