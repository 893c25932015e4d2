import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEventBus, type DomainEvent } from '../core/events.ts';
import { createLogger } from '../core/logger.ts';
import { openDb } from '../db/db.ts';
import { createJobLogStore } from './job-log.ts';
import { createJobsRepo } from './jobs.repo.ts';
import { createJobsService } from './jobs.service.ts';

function setup(dir = mkdtempSync(join(tmpdir(), 'kade-jobs-'))) {
  const db = openDb(join(dir, 'kade.db'));
  const logger = createLogger('silent');
  const events = createEventBus(logger);
  const seen: DomainEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const jobs = createJobsService({ repo: createJobsRepo(db), logs: createJobLogStore(dir), events, logger, clock: () => new Date() });
  return { dir, db, jobs, seen };
}

const actor = { user: 'ann', role: 'operator' as const, ip: '127.0.0.1' };

test('one job per app: a second one is refused until the first ends', async () => {
  const { jobs, dir, db } = setup();
  let release: () => void = () => undefined;
  const first = jobs.start({ kind: 'stack.start', stack: 'a', actor }, () => new Promise<void>((r) => (release = r)));
  assert.throws(() => jobs.start({ kind: 'stack.stop', stack: 'a', actor }, async () => undefined), { code: 'slot_busy' });
  const other = jobs.start({ kind: 'stack.stop', stack: 'b', actor }, async () => undefined);
  await new Promise((r) => setTimeout(r, 10));
  release();
  await jobs.idle();
  assert.equal(jobs.get(first.id).state, 'succeeded');
  assert.equal(jobs.get(other.id).state, 'succeeded');
  assert.equal(jobs.get(first.id).progress, 1);
  jobs.start({ kind: 'stack.stop', stack: 'a', actor }, async () => undefined);
  await jobs.idle();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a crashing job is closed as failed, frees its slot and says why', async () => {
  const { jobs, seen, dir, db } = setup();
  const j = jobs.start({ kind: 'stack.start', stack: 'a', actor }, async (ctx) => {
    ctx.log('step 1');
    throw new TypeError('boom');
  });
  await jobs.idle();
  const done = jobs.get(j.id);
  assert.equal(done.state, 'failed');
  assert.equal(done.error, 'boom');
  assert.deepEqual(jobs.readLog(j.id, 0).lines, ['step 1', 'failed: boom']);
  assert.equal(jobs.busy('a'), false);
  assert.ok(seen.some((e) => e.type === 'job.failed' && e.actor?.ip === '127.0.0.1'));
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

test('polling by offset never repeats a line, and secrets are masked', async () => {
  const { jobs, dir, db } = setup();
  let step: () => void = () => undefined;
  const gate = () => new Promise<void>((r) => (step = r));
  const j = jobs.start({ kind: 'x', stack: null, actor }, async (ctx) => {
    ctx.mask('hunter22');
    ctx.log('a\nb');
    await gate();
    ctx.log('password is hunter22');
    ctx.progress(0.5);
  });
  await new Promise((r) => setTimeout(r, 10));
  const first = jobs.readLog(j.id, 0);
  assert.deepEqual(first.lines, ['a', 'b']);
  assert.equal(first.done, false);
  step();
  await jobs.idle();
  const rest = jobs.readLog(j.id, first.next_offset);
  assert.deepEqual(rest.lines, ['password is ***', 'done']);
  assert.equal(rest.done, true);
  assert.deepEqual(jobs.readLog(j.id, rest.next_offset).lines, []);
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a job cut off by a restart reads back as interrupted, with its log', async () => {
  const a = setup();
  const j = a.jobs.start({ kind: 'stack.install', stack: 'a', actor }, async (ctx) => {
    ctx.log('pulling');
    await new Promise(() => undefined);
  });
  await new Promise((r) => setTimeout(r, 10));
  a.db.close();
  const b = setup(a.dir);
  assert.equal(b.jobs.recover().length, 1);
  const after = b.jobs.get(j.id);
  assert.equal(after.state, 'interrupted');
  assert.ok(after.ended_at);
  const log = b.jobs.readLog(j.id, 0).lines;
  assert.equal(log[0], 'pulling');
  assert.match(log[1] ?? '', /^interrupted: Kade restarted/);
  b.db.close();
  rmSync(a.dir, { recursive: true, force: true });
});

test('unknown or malformed job ids are not found', () => {
  const { jobs, dir, db } = setup();
  assert.throws(() => jobs.get('../../etc/passwd'), { code: 'not_found' });
  assert.throws(() => jobs.get('00000000-0000-0000-0000-000000000000'), { code: 'not_found' });
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a cut-off job with a resolver is resolved at the next start: its slot is held meanwhile, its detail read back, its message kept', async () => {
  const a = setup();
  const j = a.jobs.start({ kind: 'stack.reconfigure', stack: 'a', actor }, async (ctx) => {
    ctx.record({ snapshot: 's1' });
    ctx.record({ phase: 'files' });
    ctx.log('writing');
    await new Promise(() => undefined);
  });
  await new Promise((r) => setTimeout(r, 10));
  a.db.close();
  const b = setup(a.dir);
  let seen: unknown = null;
  let release: () => void = () => undefined;
  const cut = b.jobs.recover({
    'stack.reconfigure': async (job, detail, ctx) => {
      seen = { id: job.id, detail };
      ctx.log('rolling back');
      await new Promise<void>((r) => (release = r));
      return 'rolled back to the snapshot of then';
    },
  });
  assert.deepEqual(
    cut.map((x) => x.id),
    [j.id],
  );
  assert.throws(() => b.jobs.start({ kind: 'stack.stop', stack: 'a', actor }, async () => undefined), { code: 'slot_busy' });
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(seen, { id: j.id, detail: { snapshot: 's1', phase: 'files' } });
  assert.equal(b.jobs.get(j.id).state, 'running');
  release();
  await b.jobs.idle();
  const after = b.jobs.get(j.id);
  assert.equal(after.state, 'interrupted');
  assert.equal(after.error, 'rolled back to the snapshot of then');
  assert.deepEqual(b.jobs.readLog(j.id, 0).lines, [
    'writing',
    'Kade restarted while this job was running: resolving it',
    'rolling back',
    'interrupted: rolled back to the snapshot of then',
  ]);
  assert.equal(b.jobs.busy('a'), false);
  b.db.close();
  rmSync(a.dir, { recursive: true, force: true });
});

test('a resolver that fails still ends the job interrupted, saying so, and frees the slot', async () => {
  const a = setup();
  const j = a.jobs.start({ kind: 'stack.reconfigure', stack: 'a', actor }, () => new Promise(() => undefined));
  await new Promise((r) => setTimeout(r, 10));
  a.db.close();
  const b = setup(a.dir);
  b.jobs.recover({
    'stack.reconfigure': async () => {
      throw new Error('engine gone');
    },
  });
  await b.jobs.idle();
  assert.equal(b.jobs.get(j.id).state, 'interrupted');
  assert.equal(b.jobs.get(j.id).error, 'interrupted by a restart of Kade; resolving it failed: engine gone');
  assert.equal(b.jobs.busy('a'), false);
  b.db.close();
  rmSync(a.dir, { recursive: true, force: true });
});

test('runNow records a file-only change as a job, refuses a busy app and fails the job with the error', async () => {
  const { jobs, dir, db } = setup();
  const ok = jobs.runNow({ kind: 'stack.snapshot_restore', stack: 'a', actor }, (ctx) => {
    ctx.log('restoring');
    return 42;
  });
  assert.equal(ok.result, 42);
  assert.equal(jobs.get(ok.job).state, 'succeeded');
  assert.deepEqual(jobs.readLog(ok.job, 0).lines, ['restoring', 'done']);
  assert.throws(
    () =>
      jobs.runNow({ kind: 'stack.snapshot_restore', stack: 'a', actor }, () => {
        throw new Error('no space');
      }),
    /no space/,
  );
  const failed = jobs.list().find((x) => x.state === 'failed');
  assert.equal(failed?.error, 'no space');
  let release: () => void = () => undefined;
  jobs.start({ kind: 'stack.start', stack: 'a', actor }, () => new Promise<void>((r) => (release = r)));
  assert.throws(() => jobs.runNow({ kind: 'stack.snapshot_restore', stack: 'a', actor }, () => 1), { code: 'slot_busy' });
  await new Promise((r) => setTimeout(r, 10));
  release();
  await jobs.idle();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the jobs screen narrows past jobs by app, kind and state, pages back by start time, and lists its filter choices', async () => {
  let at = Date.parse('2026-01-01T00:00:00Z');
  const dir = mkdtempSync(join(tmpdir(), 'kade-jobs-'));
  const db = openDb(join(dir, 'kade.db'));
  const logger = createLogger('silent');
  const jobs = createJobsService({
    repo: createJobsRepo(db),
    logs: createJobLogStore(dir),
    events: createEventBus(logger),
    logger,
    clock: () => {
      at += 1000;
      return new Date(at);
    },
  });
  const run = async (kind: string, stack: string | null, fail = false) => {
    const j = jobs.start({ kind, stack, actor }, async () => {
      if (fail) throw new Error('no');
    });
    await jobs.idle();
    return j.id;
  };
  const install = await run('stack.install', 'a');
  const backup = await run('backup.create', 'a', true);
  const other = await run('stack.install', 'b');
  const sync = await run('repo.sync', null);
  const ids = (f: Parameters<typeof jobs.find>[0]) => jobs.find(f).map((j) => j.id);
  assert.deepEqual(ids({ limit: 100 }), [sync, other, backup, install]);
  assert.deepEqual(ids({ stack: 'a', limit: 100 }), [backup, install]);
  assert.deepEqual(ids({ kind: 'stack.install', limit: 100 }), [other, install]);
  assert.deepEqual(ids({ state: 'failed', limit: 100 }), [backup]);
  assert.deepEqual(ids({ stack: 'a', kind: 'stack.install', state: 'succeeded', limit: 100 }), [install]);
  assert.deepEqual(ids({ limit: 2 }), [sync, other]);
  assert.deepEqual(ids({ before: jobs.get(other).started_at, limit: 2 }), [backup, install]);
  assert.deepEqual(jobs.facets(), { stacks: ['a', 'b'], kinds: ['backup.create', 'repo.sync', 'stack.install'] });
  db.close();
  rmSync(dir, { recursive: true, force: true });
});
