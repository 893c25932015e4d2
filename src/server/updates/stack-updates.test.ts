import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import { createLogger } from '../core/logger.ts';
import { openDb } from '../db/db.ts';
import type { Engine } from '../engine/engine.ts';
import { createImageChecker } from './image-check.ts';
import { createKeyedLimiter } from './limiter.ts';
import type { RemoteDigest } from './registry-client.ts';
import { HOUR_MS } from './result-cache.ts';
import { createStackUpdates, RETRY_MS, STACK_RESULT_TTL_MS } from './stack-updates.ts';
import { createUpdateResultsRepo, type UpdateResultsStore } from './update-results.repo.ts';

const OLD = `sha256:${'1'.repeat(64)}`;
const NEW = `sha256:${'2'.repeat(64)}`;
const IMAGE = 'ghcr.io/o/app:1';

/** One app `web` running IMAGE pulled at OLD; the registry answers `remote`; the clock is ours. */
function setup(opts: { store?: UpdateResultsStore; enabled?: boolean; now?: number } = {}) {
  const clock = { now: opts.now ?? 1_000_000 };
  let remote: RemoteDigest = { ok: true, digest: OLD };
  let enabled = opts.enabled ?? true;
  let asked = 0;
  const engine = {
    listContainers: async () => [{ id: 'c1', image: IMAGE }],
    inspectContainer: async () => ({ Image: 'sha256:local', Config: { Image: IMAGE } }),
  } as unknown as Engine;
  const checker = createImageChecker({
    local: async () => [`ghcr.io/o/app@${OLD}`],
    remote: async () => {
      asked++;
      return remote;
    },
    limiter: createKeyedLimiter(4),
    now: () => clock.now,
  });
  const updates = createStackUpdates({
    engine,
    checker,
    stackNames: () => ['web'],
    logger: createLogger('silent'),
    now: () => clock.now,
    enabled: () => enabled,
    ...(opts.store ? { store: opts.store } : {}),
  });
  return {
    updates,
    clock,
    asked: () => asked,
    setRemote: (r: RemoteDigest) => {
      remote = r;
    },
    setEnabled: (on: boolean) => {
      enabled = on;
    },
  };
}

/** Lets the background refreshes a look started finish. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await tick();
}

test('a result older than six hours stays shown with its time; it is no longer forgotten', async () => {
  const s = setup();
  s.setRemote({ ok: true, digest: NEW });
  await s.updates.check('web', { force: true });
  const at = new Date(s.clock.now).toISOString();
  s.clock.now += STACK_RESULT_TTL_MS + 12 * HOUR_MS;
  assert.deepEqual(s.updates.known('web'), { update: 'update', update_checked_at: at });
  assert.deepEqual(s.updates.known('other'), { update: 'unknown', update_checked_at: null });
});

test('the last known result and its time are kept across a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-update-results-'));
  try {
    const db = openDb(join(dir, 'kade.db'));
    const first = setup({ store: createUpdateResultsRepo(db) });
    first.setRemote({ ok: true, digest: NEW });
    await first.updates.check('web', { force: true });
    const known = first.updates.known('web');
    db.close();
    const again = setup({ store: createUpdateResultsRepo(openDb(join(dir, 'kade.db'))), now: first.clock.now + HOUR_MS });
    assert.deepEqual(again.updates.known('web'), known);
    assert.equal(known.update, 'update');
    again.updates.forget('web');
    const third = setup({ store: createUpdateResultsRepo(openDb(join(dir, 'kade.db'))) });
    assert.equal(third.updates.known('web').update_checked_at, null, 'a forgotten result is gone from the database too');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a look refreshes a missing or stale result in the background, a fresh one not', async () => {
  const s = setup();
  s.updates.look(['web']);
  await settle();
  assert.equal(s.asked(), 1, 'never checked: asked once');
  assert.equal(s.updates.known('web').update, 'current');
  s.updates.look(['web']);
  await settle();
  assert.equal(s.asked(), 1, 'fresh: not asked again');

  s.setRemote({ ok: true, digest: NEW });
  s.clock.now += STACK_RESULT_TTL_MS;
  s.updates.look(['web']);
  s.updates.look(['web']);
  await settle();
  // The image's week-long answer is still valid: the refresh renews the time without asking the registry.
  assert.equal(s.asked(), 1);
  assert.equal(s.updates.known('web').update_checked_at, new Date(s.clock.now).toISOString());
});

test('UPDATE_CHECK_ENABLED off: a look asks no registry and the old result stays', async () => {
  const s = setup({ enabled: false });
  await s.updates.check('web', { force: true });
  assert.equal(s.asked(), 1, "a user's check asks even while it is off");
  s.clock.now += 2 * STACK_RESULT_TTL_MS;
  s.updates.look(['web']);
  await settle();
  assert.equal(s.asked(), 1);
  assert.equal(s.updates.known('web').update, 'current');
  s.setEnabled(true);
  s.updates.look(['web']);
  await settle();
  assert.equal(s.updates.known('web').update_checked_at, new Date(s.clock.now).toISOString());
});

test('a registry failure keeps the last known result; the refresh is tried again after RETRY_MS, not at every look', async () => {
  const s = setup();
  s.setRemote({ ok: true, digest: NEW });
  await s.updates.check('web', { force: true });
  const before = s.updates.known('web');
  s.setRemote({ ok: false, reason: 'connection refused' });
  const failed = await s.updates.check('web', { force: true });
  assert.equal(failed.update, 'unknown', 'the check itself says it could not tell');
  assert.deepEqual(s.updates.known('web'), before, 'the list keeps the last answer and its age');

  s.clock.now += STACK_RESULT_TTL_MS;
  const asked = s.asked();
  s.updates.look(['web']);
  await settle();
  s.updates.look(['web']);
  await settle();
  assert.equal(s.asked(), asked + 1, 'one refresh for two looks');
  assert.deepEqual(s.updates.known('web'), before);
  s.clock.now += RETRY_MS;
  s.setRemote({ ok: true, digest: OLD });
  s.updates.look(['web']);
  await settle();
  assert.equal(s.updates.known('web').update, 'current');
});
