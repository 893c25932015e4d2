import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKeyedLimiter } from './limiter.ts';

/** A fake registry that records how many requests each host has open at once. */
function fakeRegistry() {
  const open = new Map<string, number>();
  const peak = new Map<string, number>();
  return {
    peak,
    async request(host: string, ms: number): Promise<string> {
      const n = (open.get(host) ?? 0) + 1;
      open.set(host, n);
      peak.set(host, Math.max(peak.get(host) ?? 0, n));
      await sleep(ms);
      open.set(host, (open.get(host) ?? 1) - 1);
      return host;
    },
  };
}

test('never more than 4 checks at a time per registry, registries in parallel', async () => {
  const limiter = createKeyedLimiter(4);
  const reg = fakeRegistry();
  const hosts = ['docker.io', 'ghcr.io', 'quay.io'];
  const started = Date.now();
  const jobs = hosts.flatMap((h) => Array.from({ length: 12 }, (_, i) => limiter.run(h, () => reg.request(h, 20 + (i % 3) * 5))));
  const out = await Promise.all(jobs);
  assert.equal(out.length, 36);
  for (const h of hosts) assert.equal(reg.peak.get(h), 4, `${h} peaked at ${reg.peak.get(h)}`);
  // 12 per host in lanes of 4 is three rounds; hosts one after another would be nine.
  assert.ok(Date.now() - started < 6 * 30, `took ${Date.now() - started} ms: registries did not run side by side`);
  for (const h of hosts) assert.equal(limiter.active(h), 0);
});

test('a failing task frees its place', async () => {
  const limiter = createKeyedLimiter(1);
  await assert.rejects(
    limiter.run('r', () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(await limiter.run('r', async () => 'next'), 'next');
  assert.equal(limiter.active('r'), 0);
});
