import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AppError } from '../core/errors.ts';
import { createEventBus, type DomainEvent } from '../core/events.ts';
import { createLogger } from '../core/logger.ts';
import { openDb } from '../db/db.ts';
import type { HostHelperRun } from '../engine/host-helper.ts';
import { createJobLogStore } from '../jobs/job-log.ts';
import { createJobsRepo } from '../jobs/jobs.repo.ts';
import { createJobsService } from '../jobs/jobs.service.ts';
import { createEngineRestart, parseShow } from './engine-restart.ts';

// The systemd path cannot run on the CI machine (its PID 1 is not systemd, and a real restart there is the fault
// test's business): here the host helper is a fake that answers like a systemd host, and the engine's ping
// goes away and comes back. The real helper and the refusal run against the real engine in test/faults.
const admin = { user: 'ann', role: 'admin' as const, ip: '127.0.0.1' };

/** `engineAnswers` says whether the engine answers a ping, knowing whether the restart was asked for yet. */
function setup(host: { pid1: string; show?: string; restartExit?: number }, engineAnswers: (restartAsked: boolean) => boolean, own: string | null = null) {
  const dir = mkdtempSync(join(tmpdir(), 'kade-er-'));
  const db = openDb(join(dir, 'kade.db'));
  const logs = createJobLogStore(dir);
  const logger = createLogger('silent');
  const events = createEventBus(logger);
  const seen: DomainEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const jobs = createJobsService({ repo: createJobsRepo(db), logs, events, logger, clock: () => new Date() });
  const runs: HostHelperRun[] = [];
  const helper = async (run: HostHelperRun) => {
    runs.push(run);
    if (run.cmd[0] === 'cat') return { exitCode: 0, stdout: `${host.pid1}\n`, stderr: '' };
    if (run.cmd.includes('show')) return { exitCode: 0, stdout: host.show ?? 'LoadState=loaded\nActiveState=active\n', stderr: '' };
    return { exitCode: host.restartExit ?? 0, stdout: '', stderr: host.restartExit ? 'Failed to restart docker.service: Access denied' : '' };
  };
  const engine = {
    ping: async () => {
      if (!engineAnswers(runs.some((r) => r.cmd.includes('restart'))))
        throw new AppError('engine_unreachable', 'container engine not reachable: connect ENOENT');
      return { version: '27.1.0', apiVersion: '1.46' };
    },
  };
  const service = createEngineRestart({ helper, engine, jobs, events, ownContainerId: own, pollMs: 5, goneWithinMs: 300, backWithinMs: 300 });
  const done = () => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { service, jobs, logs, runs, seen, done };
}

test('a host whose PID 1 is not systemd: refused saying why, no privileged helper started, audited as failed', async () => {
  const s = setup({ pid1: 'bash' }, () => true);
  await assert.rejects(s.service.restart(admin), (err: AppError) => {
    assert.equal(err.code, 'conflict');
    assert.deepEqual(err.params, { reason: 'not_systemd', pid1: 'bash' });
    assert.equal(err.message, "the engine is not run by systemd on this host (PID 1 is 'bash'); restart it with the command your system uses");
    return true;
  });
  assert.deepEqual(
    s.runs.map((r) => r.privileged),
    [false],
  );
  assert.deepEqual(
    s.seen.map((e) => [e.type, e.status, e.detail?.reason]),
    [['engine.restart', 'failed', 'not_systemd']],
  );
  s.done();
});

test('systemd without a docker.service unit: refused naming the unit', async () => {
  const s = setup({ pid1: 'systemd', show: 'LoadState=not-found\nActiveState=inactive\n' }, () => true);
  await assert.rejects(s.service.restart(admin), { code: 'conflict', params: { reason: 'no_unit', unit: 'docker.service', state: 'not-found' } });
  s.done();
});

test('only admins may ask', async () => {
  const s = setup({ pid1: 'systemd' }, () => true);
  await assert.rejects(s.service.restart({ ...admin, role: 'operator' }), { code: 'forbidden' });
  assert.deepEqual(s.runs, []);
  s.done();
});

test('systemd with docker.service: the job asks systemd without blocking, waits for the engine to go and come back, and says so', async () => {
  let pings = 0;
  // Gone for a few pings after the restart was asked for, then back.
  const s = setup({ pid1: 'systemd' }, (restartAsked) => !restartAsked || ++pings > 4);
  const job = await s.service.restart(admin);
  await s.jobs.idle();
  assert.equal(s.jobs.get(job.id).state, 'succeeded');
  const restart = s.runs.at(-1);
  assert.deepEqual(restart, {
    cmd: ['nsenter', '-t', '1', '-m', '-u', '-i', '-n', '-p', '--', 'systemctl', '--no-block', 'restart', 'docker.service'],
    privileged: true,
  });
  assert.deepEqual(s.logs.read(job.id, 0), [
    "PID 1 of the engine's host is systemd and docker.service is loaded (active)",
    'systemd restarts docker.service; waiting for the engine to go away',
    'the engine stopped; waiting for it to answer again',
    'the engine answers again (Docker 27.1.0)',
    'done',
  ]);
  assert.deepEqual(
    s.seen.map((e) => [e.type, e.status]),
    [['engine.restart', 'ok']],
  );
  s.done();
});

test('an engine that never comes back fails the job with what to look at; one that never went away too', async () => {
  const gone = setup({ pid1: 'systemd' }, (restartAsked) => !restartAsked);
  const a = await gone.service.restart(admin);
  await gone.jobs.idle();
  assert.equal(gone.jobs.get(a.id).state, 'failed');
  assert.match(
    gone.jobs.get(a.id).error ?? '',
    /^the engine did not answer within 0.3 s of stopping: see `systemctl status docker.service` and `journalctl -u docker.service`/,
  );
  gone.done();

  const stays = setup({ pid1: 'systemd' }, () => true);
  const b = await stays.service.restart(admin);
  await stays.jobs.idle();
  assert.match(stays.jobs.get(b.id).error ?? '', /^the engine kept answering for 0.3 s after the restart was asked for/);
  stays.done();

  const denied = setup({ pid1: 'systemd', restartExit: 1 }, () => true);
  const c = await denied.service.restart(admin);
  await denied.jobs.idle();
  assert.equal(denied.jobs.get(c.id).error, 'systemctl restart docker.service failed: Failed to restart docker.service: Access denied');
  denied.done();
});

test('Kade in a container of the engine: the log says it stops with it; the resolver ends the job with what the engine says at the next start', async () => {
  const s = setup({ pid1: 'systemd' }, () => true, 'abc123');
  const job = await s.service.restart(admin);
  await s.jobs.idle();
  assert.equal(
    s.logs.read(job.id, 0)[1],
    "Kade runs in a container of this engine: it stops with the engine and its restart policy starts it again; this job then ends with the engine's answer",
  );
  const text = await s.service.resolvers['engine.restart']?.(null as never, {}, null as never);
  assert.equal(text, 'Kade stopped with the engine and started again; the engine answers (Docker 27.1.0)');
  s.done();
});

test('systemctl show output is read as properties', () => {
  assert.deepEqual(parseShow('LoadState=loaded\nActiveState=active\n\n'), { LoadState: 'loaded', ActiveState: 'active' });
});
