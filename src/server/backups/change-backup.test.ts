import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { createEventBus, type DomainEvent } from '../core/events.ts';
import { createLogger } from '../core/logger.ts';
import { openDb } from '../db/db.ts';
import { createFakeEngine } from '../engine/fake-engine.ts';
import { createJobLogStore } from '../jobs/job-log.ts';
import { createJobsRepo } from '../jobs/jobs.repo.ts';
import { createJobsService, type JobContext } from '../jobs/jobs.service.ts';
import { diskIO } from '../stacks/store/disk-io.ts';
import { stackStoreOn } from '../stacks/store/stack-store.ts';
import type { Branch } from './archive-format.ts';
import { type ArchiveIO, createBackupsService, type DatabaseTarget } from './backups.service.ts';

// The backup a reconfigure makes first and the way back for its databases (change-backup.ts), over an archive that
// keeps what it was given: the backup is named in the job's log and its failure is thrown; the dumps come back
// into the running databases, and nothing but the dumps is extracted for it.
const admin = { user: 'admin', role: 'admin' as const, ip: '127.0.0.1' };

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const c of stream) out += String(c);
  return out;
}

function setup(opts: { minFreeGb?: number; dbRuns?: boolean; unreadable?: boolean } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'kade-cb-'));
  const backupDir = join(root, 'backups');
  const stackDir = join(root, 'stacks', 'app');
  mkdirSync(stackDir, { recursive: true });
  mkdirSync(join(root, 'jobs'));
  writeFileSync(join(stackDir, 'docker-compose.yml'), 'services: {}\n');
  // What the archives hold: their dumps by archive path.
  const held = new Map<string, Map<string, string>>();
  const extracted: { only: readonly Branch[] | undefined }[] = [];
  let database = 'rows before the change';
  const loaded: string[] = [];
  const archive: ArchiveIO = {
    async write(o) {
      const dumps = new Map<string, string>();
      for (const d of o.dumps) dumps.set(d.name, await text(await d.stream()));
      held.set(o.dest, dumps);
      writeFileSync(o.dest, 'archive');
      writeFileSync(`${o.dest}.json`, JSON.stringify({ meta: o.meta, skipped: [] }));
      return { skipped: [] };
    },
    verify: async () => (opts.unreadable ? { ok: false, problems: ['dumps/db.sql: checksum differs'] } : { ok: true, problems: [] }),
    async extract(path, target, only) {
      extracted.push({ only });
      mkdirSync(join(target, 'dumps'), { recursive: true });
      for (const [name, content] of held.get(path) ?? []) writeFileSync(join(target, 'dumps', name), content);
    },
  };
  const db: DatabaseTarget = {
    service: 'db',
    kind: 'postgres',
    containerId: opts.dbRuns === false ? null : 'c-db',
    ready: async () => {},
    async dump() {
      const stream = new PassThrough();
      stream.end(database);
      return { stream, done: Promise.resolve() };
    },
    async load(stream) {
      database = await text(stream);
      loaded.push(database);
    },
  };
  const logger = createLogger('silent');
  const events = createEventBus(logger);
  const seen: DomainEvent[] = [];
  events.subscribe((e) => void seen.push(e));
  const jobs = createJobsService({
    repo: createJobsRepo(openDb(join(root, 'kade.db'))),
    logs: createJobLogStore(join(root, 'jobs')),
    events,
    logger,
    clock: () => new Date(),
  });
  let running = true;
  const service = createBackupsService({
    stacks: {
      locate: () => ({ dir: stackDir, adopted: false, project: null, libraryPath: stackDir }),
      databases: async () => [{ ...db, containerId: running ? db.containerId : null }],
      up: async () => undefined,
      stop: async () => undefined,
      down: async () => undefined,
      swap: stackStoreOn(diskIO(), { libraryDir: join(root, 'stacks'), stateDir: join(root, 'state') }).swap,
      judge: () => undefined,
    },
    archive,
    settings: {
      backupDir,
      dataDir: join(root, 'appdata'),
      libraryDir: join(root, 'stacks'),
      appdata: () => true,
      compression: () => 'gzip',
      minFreeGb: () => opts.minFreeGb ?? 0,
      warnPct: () => 90,
      offsiteDir: () => '',
      retention: () => ({ count: 0, days: 0 }),
    },
    engine: createFakeEngine(),
    jobs,
    events,
    clock: () => new Date('2026-11-28T10:00:00.000Z'),
  });
  /** Runs `work` inside a job of the app, as a reconfigure does; resolves with its end and its log. */
  async function inJob<T>(work: (ctx: JobContext) => Promise<T>): Promise<{ state: string; error: string | null; log: string[]; value: T | undefined }> {
    let value: T | undefined;
    const j = jobs.start({ kind: 'stack.reconfigure', stack: 'app', actor: admin }, async (ctx) => {
      value = await work(ctx);
    });
    const end = await jobs.wait(j.id);
    return { state: end.state, error: end.error, log: jobs.readLog(j.id, 0).lines, value };
  }
  return {
    service,
    inJob,
    backupDir,
    seen,
    extracted,
    loaded,
    setDatabase: (v: string) => (database = v),
    database: () => database,
    stopDatabase: () => (running = false),
  };
}

test('the backup before a change is named in the job log, listed, and said as created', async () => {
  const s = setup();
  const r = await s.inJob((ctx) => s.service.beforeChange('app', 'reconfigure', ctx, admin));
  assert.equal(r.state, 'succeeded', r.error ?? '');
  const b = r.value;
  assert.ok(b);
  assert.ok(r.log.includes(`backup ${b.id} made before the reconfigure`), r.log.join('\n'));
  assert.deepEqual(b.databases, [{ service: 'db', kind: 'postgres' }]);
  assert.deepEqual(
    s.service.list(admin).map((x) => [x.id, x.reason]),
    [[b.id, 'reconfigure']],
  );
  assert.deepEqual(
    s.seen.filter((e) => e.type.startsWith('backup.')).map((e) => [e.type, e.status, e.detail?.id]),
    [['backup.created', 'ok', b.id]],
  );
});

test('a backup before a change that cannot be made is thrown, not passed over, and said as failed', async () => {
  const s = setup({ minFreeGb: 1_000_000_000 });
  const r = await s.inJob((ctx) => s.service.beforeChange('app', 'reconfigure', ctx, admin));
  assert.equal(r.state, 'failed');
  assert.match(r.error ?? '', /not enough disk space/);
  assert.deepEqual(s.service.list(admin), []);
  assert.deepEqual(
    s.seen.filter((e) => e.type.startsWith('backup.')).map((e) => [e.type, e.status, e.detail?.reason]),
    [['backup.failed', 'failed', 'reconfigure']],
  );
});

test('a backup before a change that does not read back is thrown: no change goes ahead on it', async () => {
  const s = setup({ unreadable: true });
  const r = await s.inJob((ctx) => s.service.beforeChange('app', 'reconfigure', ctx, admin));
  assert.equal(r.state, 'failed');
  assert.match(r.error ?? '', /^the backup \S+ made before the reconfigure did not read back whole, so nothing was changed$/);
  assert.ok(
    r.log.some((l) => l.includes('verification failed: dumps/db.sql: checksum differs')),
    r.log.join('\n'),
  );
  assert.deepEqual(
    s.seen.filter((e) => e.type === 'backup.failed').map((e) => [e.status, e.detail?.reason]),
    [['failed', 'reconfigure']],
  );
});

test("the backup's dumps go back into the running databases; only the dumps are extracted, and nothing is left", async () => {
  const s = setup();
  const made = await s.inJob((ctx) => s.service.beforeChange('app', 'reconfigure', ctx, admin));
  const id = made.value?.id ?? '';
  s.setDatabase('rows a migration of the new version wrote');
  const r = await s.inJob((ctx) => s.service.loadDumps(id, ctx));
  assert.equal(r.state, 'succeeded', r.error ?? '');
  assert.deepEqual(r.value, ['db']);
  assert.equal(s.database(), 'rows before the change');
  assert.deepEqual(s.extracted, [{ only: ['dumps'] }]);
  assert.ok(r.log.includes(`the postgres database of 'db' holds the data of backup ${id} again`), r.log.join('\n'));
  assert.deepEqual(
    readdirSync(s.backupDir).filter((n) => n.startsWith('.')),
    [],
    'the extracted dumps are removed',
  );
});

test('a database that does not run is a failure naming it, and the extracted dumps are removed all the same', async () => {
  const s = setup();
  const made = await s.inJob((ctx) => s.service.beforeChange('app', 'reconfigure', ctx, admin));
  s.stopDatabase();
  const r = await s.inJob((ctx) => s.service.loadDumps(made.value?.id ?? '', ctx));
  assert.equal(r.state, 'failed');
  assert.match(r.error ?? '', /database of service 'db' does not run/);
  assert.deepEqual(s.loaded, []);
  assert.deepEqual(
    readdirSync(s.backupDir).filter((n) => n.startsWith('.')),
    [],
  );
});

test('a backup without dumps loads nothing', async () => {
  const s = setup({ dbRuns: false });
  const made = await s.inJob((ctx) => s.service.beforeChange('app', 'reconfigure', ctx, admin));
  assert.deepEqual(made.value?.databases, []);
  const r = await s.inJob((ctx) => s.service.loadDumps(made.value?.id ?? '', ctx));
  assert.deepEqual(r.value, []);
  assert.deepEqual(s.extracted, []);
});
