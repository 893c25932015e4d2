import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createCatalogueService } from '../../catalogue/catalogue.service.ts';
import { createFakeGit } from '../../catalogue/fake-git.ts';
import { createReposRepo } from '../../catalogue/repos.repo.ts';
import { AppError } from '../../core/errors.ts';
import { type Actor, createEventBus, type DomainEvent } from '../../core/events.ts';
import { createLogger } from '../../core/logger.ts';
import { openDb } from '../../db/db.ts';
import { createFakeCompose } from '../../engine/fake-compose.ts';
import { createFakeEngine } from '../../engine/fake-engine.ts';
import { createJobLogStore } from '../../jobs/job-log.ts';
import { createJobsRepo } from '../../jobs/jobs.repo.ts';
import { createJobsService } from '../../jobs/jobs.service.ts';
import { createStacksService } from '../stacks.service.ts';
import type { BackupForChange } from './stack-context.ts';

// The backup a reconfigure makes first (issue #24 item 3), over the fake engine and compose with a backups port that
// records what it is asked: made before any file changes, named in the job's audit detail; no backup, no change;
// its dumps loaded back when the change fails once the new files were started, not when it fails before.
const ADMIN: Actor = { user: 'ada', role: 'admin', ip: '127.0.0.1' };
const IMAGE = 'kade-test/web:1';
const FILES = ['docker-compose.yml', '.env', '.svc.json'];

async function setup(t: { after(fn: () => void): void }, opts: { backupFails?: boolean } = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'kade-rcb-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const library = join(tmp, 'stacks');
  for (const d of [library, join(tmp, 'state'), join(tmp, 'data'), join(tmp, 'jobs'), join(tmp, 'repo', 'apps', 'notes')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(tmp, 'repo', 'VERSION'), 'v0.1.00\n');
  const template = { name: 'Notes', version: '1.0.0', fields: [{ id: 'title', label: 'Title', default: 'Notes', required: true }] };
  writeFileSync(join(tmp, 'repo', 'apps', 'notes', 'template.json'), JSON.stringify(template));
  writeFileSync(
    join(tmp, 'repo', 'apps', 'notes', 'docker-compose.yml'),
    `services:\n  web:\n    image: ${IMAGE}\n    command: ["sleep", "infinity"]\n    environment:\n      TITLE: "{{title}}"\n`,
  );
  const logger = createLogger('silent');
  const events = createEventBus(logger);
  const seen: DomainEvent[] = [];
  events.subscribe((e) => void seen.push(e));
  const db = openDb(join(tmp, 'kade.db'));
  t.after(() => db.close());
  const jobs = createJobsService({ repo: createJobsRepo(db), logs: createJobLogStore(join(tmp, 'jobs')), events, logger, clock: () => new Date() });
  const git = createFakeGit();
  const remote = git.serve();
  await remote.addRepo('apps', join(tmp, 'repo'));
  const catalogue = createCatalogueService({
    repos: createReposRepo(db),
    git,
    jobs,
    events,
    cacheDir: join(tmp, 'cache'),
    version: '0.1.0',
    clock: () => new Date(),
  });
  const added = catalogue.add(ADMIN, { id: 'store', name: 'Store', url: remote.url('apps'), subdirectory: 'apps' });
  assert.equal((await jobs.wait(added.job.id)).state, 'succeeded');
  const engine = createFakeEngine();
  engine.addImage(IMAGE);
  const compose = createFakeCompose({ endpoint: { socketPath: '/var/run/docker.sock' }, engine });
  const files = () => FILES.map((f) => readFileSync(join(library, 'notes', f), 'utf8'));
  // What the backups are asked, with the files as they were at that moment.
  const asked: { what: 'make' | 'loadDumps'; id?: string; files: string[]; composeCalls: number }[] = [];
  const backups: BackupForChange = {
    async make(stack, reason, ctx) {
      asked.push({ what: 'make', files: files(), composeCalls: compose.calls.length });
      if (opts.backupFails) throw new AppError('disk_full', `not enough disk space for a backup of '${stack}'`);
      ctx.log(`backup ${stack}-1 made before the ${reason}`);
      return { id: `${stack}-1`, databases: [{ service: 'db', kind: 'postgres' }] };
    },
    async loadDumps(id, ctx) {
      asked.push({ what: 'loadDumps', id, files: files(), composeCalls: compose.calls.length });
      ctx.log(`loaded the dumps of ${id}`);
      return ['db'];
    },
  };
  const stacks = createStacksService({
    baseDir: tmp,
    libraryDir: library,
    dataDir: join(tmp, 'data'),
    stateDir: join(tmp, 'state'),
    engineSocket: '/var/run/docker.sock',
    backupDir: join(tmp, 'backups'),
    allowedHostDirs: () => [],
    uid: 1000,
    gid: 1000,
    timezone: () => 'UTC',
    engine,
    compose,
    jobs,
    catalogue,
    events,
    logger,
    clock: () => new Date(),
    backupForChange: backups,
  });
  const installed = await jobs.wait(stacks.install(ADMIN, { repo: 'store', app: 'notes', name: 'notes', values: { title: 'First' } }).id);
  assert.equal(installed.state, 'succeeded', installed.error ?? '');
  const reconfigure = async (title: string) => {
    const j = await jobs.wait(stacks.reconfigure(ADMIN, 'notes', { values: { title } }).id);
    return { ...j, log: jobs.readLog(j.id, 0).lines };
  };
  return { stacks, compose, files, asked, seen, reconfigure };
}

const reconfigured = (seen: DomainEvent[]) => seen.filter((e) => e.type === 'stack.reconfigured').map((e) => [e.status, e.detail?.backup]);

test('the backup is made before any file changes or compose runs, named in the log and in the audit detail', async (t) => {
  const k = await setup(t);
  const before = k.files();
  const calls = k.compose.calls.length;
  const j = await k.reconfigure('Second');
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  assert.deepEqual(
    k.asked.map((a) => [a.what, a.composeCalls]),
    [['make', calls]],
  );
  assert.deepEqual(k.asked[0]?.files, before, 'the files were as they were when the backup was made');
  assert.ok(j.log.indexOf('backup notes-1 made before the reconfigure') < j.log.findIndex((l) => /^snapshot \S+ taken/.test(l)), j.log.join('\n'));
  assert.deepEqual(reconfigured(k.seen), [['ok', 'notes-1']]);
});

test('no backup, no change: the job fails naming why, before any file is written or compose runs', async (t) => {
  const k = await setup(t, { backupFails: true });
  const before = k.files();
  const calls = k.compose.calls.length;
  const j = await k.reconfigure('Second');
  assert.equal(j.state, 'failed');
  assert.equal(j.error, "no backup could be made before the reconfigure, so nothing was changed: not enough disk space for a backup of 'notes'");
  assert.deepEqual(k.files(), before);
  assert.equal(k.stacks.store.snapshots.list('notes').length, 0, 'not even a snapshot');
  assert.equal(k.compose.calls.length, calls);
  assert.deepEqual(reconfigured(k.seen), [['failed', '']]);
});

test('a start of the new files that fails: files back, the previous configuration started, then the dumps loaded', async (t) => {
  const k = await setup(t);
  const before = k.files();
  k.compose.failOn('up', { nth: 1 });
  const j = await k.reconfigure('Second');
  assert.equal(j.state, 'failed');
  const load = k.asked.find((a) => a.what === 'loadDumps');
  assert.ok(load, j.log.join('\n'));
  assert.equal(load.id, 'notes-1');
  assert.deepEqual(load.files, before, 'the files were put back first');
  assert.deepEqual(
    k.compose.calls.slice(-2).map((c) => c.op),
    ['up', 'up'],
    'the failed start, then the previous configuration, before the load',
  );
  assert.equal(load.composeCalls, k.compose.calls.length);
  assert.ok(j.log.includes('loaded the dumps of notes-1'), j.log.join('\n'));
  assert.deepEqual(reconfigured(k.seen), [['failed', 'notes-1']]);
});

test('a failure before anything started (compose refuses the new files) leaves the databases alone', async (t) => {
  const k = await setup(t);
  k.compose.failOn('validate', { nth: 1 });
  const j = await k.reconfigure('Second');
  assert.equal(j.state, 'failed');
  assert.deepEqual(
    k.asked.map((a) => a.what),
    ['make'],
  );
});
