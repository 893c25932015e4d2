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
  assert.equal(b.jobs.recover(), 1);
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
