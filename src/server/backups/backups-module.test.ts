import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { jobsIn } from '../../../test/helpers/jobs-kit.ts';
import type { DeliveryT } from '../../shared/notifications.ts';
import { createFakeEngine } from '../engine/fake-engine.ts';
import type { Message } from '../notifications/message.ts';
import { createNotifier } from '../notifications/notifier.ts';
import type { ArchiveIO, BackupStacks, DatabaseTarget } from './backups.service.ts';
import { createBackupsModule } from './backups-module.ts';

// A scheduled round over five apps, two of whose backups fail and two of whose archives do not read back, as the
// notification channels see it: one message for the failed backups and one for the unreadable archives, each naming
// every app of the round (SPEC Events: "one message per round"), not one per app.
const admin = { user: 'admin', role: 'admin' as const, ip: '127.0.0.1' };
const APPS = ['blog', 'cloud', 'notes', 'photos', 'wiki'];

function setup(opts: { databases?: (name: string) => DatabaseTarget[]; order?: string[] } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'kade-bk-round-'));
  for (const app of APPS) {
    mkdirSync(join(root, 'stacks', app), { recursive: true });
    writeFileSync(join(root, 'stacks', app, 'compose.yaml'), 'services: {}\n');
  }
  let now = new Date('2026-11-25T03:00:30.000Z');
  const { logger, events, jobs } = jobsIn(root, () => now);
  // cloud and wiki cannot be backed up (their database cannot be listed); the archives of notes and photos are broken.
  const archive: ArchiveIO = {
    async write(o) {
      opts.order?.push('archive written');
      writeFileSync(o.dest, 'archive');
      writeFileSync(`${o.dest}.json`, JSON.stringify({ meta: o.meta, skipped: [] }));
      return { skipped: [] };
    },
    verify: async (path) => (/notes|photos/.test(path) ? { ok: false, problems: ['checksum mismatch'] } : { ok: true, problems: [] }),
    extract: async () => undefined,
  };
  const stacks = {
    locate: (name: string) => ({ dir: join(root, 'stacks', name), adopted: false, project: null, libraryPath: join(root, 'stacks', name) }),
    databases: async (name: string) => {
      if (name === 'cloud' || name === 'wiki') throw new Error(`the database of ${name} could not be listed`);
      return opts.databases?.(name) ?? [];
    },
  } as unknown as BackupStacks;
  const state = new Map<string, string>();
  const sent: Message[] = [];
  const notifier = createNotifier({
    repo: {
      channels: () => [{ id: 'hook', kind: 'webhook', enabled: true, url: 'http://127.0.0.1/hook', format: 'generic', token: null }],
      rules: () => ({}),
      record: (_c: string, _d: DeliveryT) => undefined,
      state: (kind, subject) => state.get(`${kind} ${subject}`) ?? null,
      setState: (kind, subject, value) => state.set(`${kind} ${subject}`, value),
    },
    send: async (_c, m) => {
      sent.push(m);
      return { ok: true, status: 200 };
    },
    logger,
    clock: () => now,
  });
  notifier.subscribe(events);
  const backups = createBackupsModule({
    stacks,
    archive,
    settings: {
      backupSettings: () => ({
        BACKUP_APPDATA: false,
        BACKUP_COMPRESSION: 'gzip',
        BACKUP_SCHEDULE_MODE: 'daily',
        BACKUP_SCHEDULE_DAY: 0,
        BACKUP_SCHEDULE_HOUR: 3,
        BACKUP_RETENTION_COUNT: 0,
        BACKUP_RETENTION_DAYS: 0,
        BACKUP_OFFSITE_DIR: '',
        DISK_MIN_FREE_GB: 0,
        DISK_WARN_PCT: 90,
      }),
      update: () => undefined,
      clockZone: () => 'UTC',
    } as never,
    paths: { BACKUP_DIR: join(root, 'backups'), DATA_DIR: join(root, 'appdata'), LIBRARY_DIR: join(root, 'stacks') },
    stateDir: root,
    engine: createFakeEngine(),
    jobs,
    events,
    logger,
    clock: () => now,
    apps: () => APPS,
  });
  return { backups, jobs, notifier, sent, setNow: (d: Date) => (now = d) };
}

test('a scheduled round sends one message naming every app whose backup failed, and one for its unreadable archives', async () => {
  const s = setup();
  assert.deepEqual(await s.backups.tickSchedule(), { blog: 'ok', cloud: 'failed', notes: 'ok', photos: 'ok', wiki: 'failed' });
  await s.notifier.idle();
  assert.deepEqual(
    s.sent.map((m) => [m.kind, m.title]),
    [
      ['backup_failed', 'Kade: Scheduled backup failed for cloud, wiki'],
      ['archive_unreadable', 'Kade: Unreadable backups from the scheduled round: notes-20261125-030030, photos-20261125-030030'],
    ],
  );
  const [failed, unreadable] = s.sent;
  assert.equal(
    failed?.message,
    'The scheduled backup round of 2026-11-25T03:00:00.000Z failed for 2 of 5 apps:\n' +
      '- cloud: the database of cloud could not be listed\n' +
      '- wiki: the database of wiki could not be listed',
  );
  assert.match(unreadable?.message ?? '', /made 2 backups that failed verification.*\n- notes-20261125-030030 of notes\n- photos-20261125-030030 of photos$/);

  // The same round again (a second tick, a restart within it) sends nothing; the next day's round sends its own.
  s.setNow(new Date('2026-11-25T03:20:00.000Z'));
  assert.equal(await s.backups.tickSchedule(), null);
  s.setNow(new Date('2026-11-26T03:00:30.000Z'));
  await s.backups.tickSchedule();
  await s.notifier.idle();
  assert.equal(s.sent.length, 4);
  assert.match(s.sent[2]?.message ?? '', /^The scheduled backup round of 2026-11-26T03:00:00\.000Z failed for 2 of 5 apps/);
});

test('a backup made by hand still sends its own message when it fails, and when its archive does not read back', async () => {
  const s = setup();
  for (const app of ['wiki', 'notes']) await s.jobs.wait(s.backups.create(admin, app).id);
  await s.notifier.idle();
  assert.deepEqual(
    s.sent.map((m) => m.title),
    ['Kade: Backup of wiki failed', 'Kade: Backup notes-20261125-030030 is unreadable'],
  );
});

test('a backup waits for each running database to answer before any file of the app is read', async () => {
  const order: string[] = [];
  const db = (service: string, containerId: string | null, ms: number): DatabaseTarget => ({
    service,
    kind: 'postgres',
    containerId,
    async ready() {
      order.push(`${service} asked`);
      await new Promise((r) => setTimeout(r, ms));
      order.push(`${service} answers`);
    },
    dump: async () => ({ stream: Readable.from([]), done: Promise.resolve() }),
    load: async () => undefined,
  });
  const s = setup({ order, databases: () => [db('db', 'c-db', 30), db('cache', 'c-cache', 5), db('old', null, 0)] });
  const job = await s.jobs.wait(s.backups.create(admin, 'blog').id);
  assert.equal(job.state, 'succeeded', JSON.stringify(job));
  // Both running databases are waited for side by side; the stopped one is not asked.
  assert.deepEqual(order, ['db asked', 'cache asked', 'cache answers', 'db answers', 'archive written']);
});
