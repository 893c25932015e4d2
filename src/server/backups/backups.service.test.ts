import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { backupSettingsIn, backupStacksIn } from '../../../test/helpers/backups-kit.ts';
import { jobsIn } from '../../../test/helpers/jobs-kit.ts';
import { createFakeEngine } from '../engine/fake-engine.ts';
import { type ArchiveIO, createBackupsService } from './backups.service.ts';

// The service's own rules with an archive that only writes its metadata: names that never collide within a
// second, retention by count and age that always keeps the newest, and the offsite copy.
const admin = { user: 'admin', role: 'admin' as const, ip: '127.0.0.1' };

function setup(opts: { retention?: { count: number; days: number }; offsite?: string; minFreeGb?: number } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'kade-bk-'));
  const backupDir = join(root, 'backups');
  const stackDir = join(root, 'stacks', 'app');
  mkdirSync(stackDir, { recursive: true });
  writeFileSync(join(stackDir, 'docker-compose.yml'), 'services: {}\n');
  let now = new Date('2026-11-25T10:00:00.000Z');
  const archive: ArchiveIO = {
    async write(o) {
      writeFileSync(o.dest, 'archive');
      writeFileSync(`${o.dest}.json`, JSON.stringify({ meta: o.meta, skipped: [] }));
      return { skipped: [] };
    },
    verify: async () => ({ ok: true, problems: [] }),
    extract: async () => undefined,
  };
  const { events, jobs } = jobsIn(root, () => now);
  const service = createBackupsService({
    stacks: backupStacksIn(root, stackDir),
    archive,
    settings: backupSettingsIn(root, {
      minFreeGb: () => opts.minFreeGb ?? 0,
      offsiteDir: () => opts.offsite ?? '',
      retention: () => opts.retention ?? { count: 0, days: 0 },
    }),
    engine: createFakeEngine(),
    jobs,
    events,
    clock: () => now,
  });
  const backup = async () => {
    const j = service.create(admin, 'app');
    const end = await jobs.wait(j.id);
    assert.equal(end.state, 'succeeded', end.error ?? '');
  };
  return { service, backup, backupDir, setNow: (d: Date) => (now = d) };
}

test('backups made in the same second get names of their own', async () => {
  const s = setup();
  await s.backup();
  await s.backup();
  await s.backup();
  assert.deepEqual(
    s.service.list(admin).map((b) => b.id),
    ['app-20261125-100000-3', 'app-20261125-100000-2', 'app-20261125-100000'],
  );
});

test('retention by count keeps the newest ones; by age it removes old ones but never the newest', async () => {
  const s = setup({ retention: { count: 2, days: 0 } });
  for (let i = 0; i < 4; i++) {
    s.setNow(new Date(Date.UTC(2026, 10, 20 + i, 3)));
    await s.backup();
  }
  assert.deepEqual(
    s.service.list(admin).map((b) => b.id),
    ['app-20261123-030000', 'app-20261122-030000'],
  );
  const aged = setup({ retention: { count: 0, days: 7 } });
  aged.setNow(new Date('2026-01-01T03:00:00Z'));
  await aged.backup();
  aged.setNow(new Date('2026-03-01T03:00:00Z'));
  assert.equal(aged.service.prune('app', null).length, 0, 'the only backup is the newest and stays, however old');
  await aged.backup();
  assert.deepEqual(
    aged.service.list(admin).map((b) => b.id),
    ['app-20260301-030000'],
  );
});

test('a backup that would eat the last free space is refused before any file is written', () => {
  const s = setup({ minFreeGb: 1_000_000_000 });
  assert.throws(
    () => s.service.create(admin, 'app'),
    (e: Error & { code?: string }) => e.code === 'disk_full' && /must stay free/.test(e.message),
  );
  assert.equal(existsSync(s.backupDir) && s.service.list(admin).length > 0, false);
});

test('the offsite copy lands beside the archive’s metadata, and its place is recorded', async () => {
  const offsite = mkdtempSync(join(tmpdir(), 'kade-off-'));
  const s = setup({ offsite });
  await s.backup();
  const [b] = s.service.list(admin);
  assert.ok(b);
  assert.ok(existsSync(join(offsite, `${b.id}.tar.gz`)));
  assert.ok(existsSync(join(offsite, `${b.id}.tar.gz.json`)));
  assert.equal(b.offsite, join(offsite, `${b.id}.tar.gz`));
});
