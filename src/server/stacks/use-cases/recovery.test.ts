import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ADMIN, createStacksKit, SHARED, type StacksKit } from '../../../../test/helpers/stacks-kit.ts';
import type { JobT } from '../../../shared/api.ts';

// The recovery after a crash, over the fakes (test/helpers/stacks-kit.ts): Kade stopped at each step of an install,
// a reconfigure and a connect (the failpoints the engine tier's kill tests use), then a new Kade over the same
// folders, engine and database. The cut-off job ends `interrupted` saying what the recovery did; a reconfigure or
// connect is rolled back to its snapshot byte for byte and the app runs the old files; an install leaves nothing or a
// whole folder. test/engine/interrupted-reconfigure.test.ts kills a real Kade at the same points.

async function kit(t: { after(fn: () => void): void }): Promise<StacksKit> {
  const k = await createStacksKit();
  t.after(() => k.dispose());
  return k;
}

const ROLLED_BACK = /^rolled back to the snapshot of \d{4}-\d\d-\d\dT/;

/** The job after the restart, with its log. */
function after(k: StacksKit, job: JobT): JobT & { log: string[] } {
  return { ...k.jobs.get(job.id), log: k.jobs.readLog(job.id, 0).lines };
}

/** The environment the running container of `service` was created with. */
async function envOf(k: StacksKit, project: string, service: string): Promise<Record<string, string>> {
  const id = (await k.running(project))[service];
  assert.ok(id, `${service} of ${project} runs`);
  const env = ((await k.engine.inspectContainer(id)) as { Config: { Env: string[] } }).Config.Env;
  return Object.fromEntries(env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

/** The slot is free again and the app can be stopped and started. */
async function operable(k: StacksKit, name: string): Promise<void> {
  for (const op of ['stop', 'start'] as const) {
    const j = await k.done(k.stacks.operate(ADMIN, name, op));
    assert.equal(j.state, 'succeeded', `${op}: ${j.error ?? ''}`);
  }
}

test('an install stopped while its temp folder is written leaves nothing: the folder goes at the start and the job says so', async (t) => {
  const k = await kit(t);
  const job = await k.crash('install.temp', () => k.stacks.install(ADMIN, { repo: 'store', app: 'notes', name: 'notes', values: {} }));
  const temps = () => k.io.list(k.paths.library).filter((e) => e.name.startsWith('.tmp-notes-'));
  assert.equal(temps().length, 1, 'the crash left a half-written temp folder');
  assert.equal(k.stored(job.id)?.state, 'running', 'the job is cut off, not ended');

  assert.deepEqual(await k.restart(), { recovered: 1 });
  const j = after(k, job);
  assert.equal(j.state, 'interrupted');
  assert.equal(j.error, "the install was cut off before the app's folder was written: nothing was left behind");
  assert.ok(
    j.log.some((l) => l.startsWith('removed the half-written folder .tmp-notes-')),
    j.log.join('\n'),
  );
  assert.equal(j.log.at(-1), `interrupted: ${j.error}`);
  assert.deepEqual(temps(), []);
  assert.equal(k.io.kind(join(k.paths.library, 'notes')), null);
  assert.equal((await k.install('notes')).state, 'succeeded', 'the name is free');
});

test('an install stopped after its folder was written and before `up`: the folder is whole, and a restart creates the containers', async (t) => {
  const k = await kit(t);
  const job = await k.crash('install.folder', () => k.stacks.install(ADMIN, { repo: 'store', app: 'notes', name: 'notes', values: {} }));
  await k.restart();
  const j = after(k, job);
  assert.equal(j.state, 'interrupted');
  assert.equal(j.error, "the install was cut off after the app's folder was written: start the app or remove it");
  assert.deepEqual(await k.running('notes'), {}, 'no container yet');

  const restart = await k.done(k.stacks.operate(ADMIN, 'notes', 'restart'));
  assert.equal(restart.state, 'succeeded', restart.error ?? '');
  assert.ok(k.jobs.readLog(restart.id, 0).lines.includes('the app has no containers yet: creating them'));
  assert.deepEqual(Object.keys(await k.running('notes')), ['web']);
  assert.equal((await k.done(k.stacks.remove(ADMIN, 'notes', { removeData: true }))).state, 'succeeded');
});

/**
 * `board` reconfigured to a new title and database password, Kade stopped at `point`, then a new Kade: the files
 * must be the old ones byte for byte, the running containers must carry them, and the job says it rolled back.
 */
async function stoppedReconfigure(t: { after(fn: () => void): void }, point: string) {
  const k = await kit(t);
  assert.equal((await k.install('board', 'board', { title: 'First', db_password: 'pg-old-1' })).state, 'succeeded');
  const before = k.tree();
  const job = await k.crash(point, () => k.stacks.reconfigure(ADMIN, 'board', { values: { title: 'Second', db_password: 'pg-new-2' } }));
  await k.restart();
  const j = after(k, job);
  assert.equal(j.state, 'interrupted', j.log.join('\n'));
  assert.match(j.error ?? '', ROLLED_BACK, j.log.join('\n'));
  assert.equal(j.log.at(-1), `interrupted: ${j.error}`, 'the log closes with what the recovery did');
  assert.ok(!j.log.join('\n').includes('pg-new-2') && !j.log.join('\n').includes('pg-old-1'), 'no password in the log');
  assert.deepEqual(k.tree(), before, 'compose file, .env and .svc.json are the old ones byte for byte');
  assert.equal((await envOf(k, 'board', 'web')).TITLE, 'First', 'the running app carries the old values');
  assert.equal((await envOf(k, 'board', 'db')).POSTGRES_PASSWORD, 'pg-old-1');
  assert.deepEqual(k.stacks.filesVerdict(ADMIN, 'board'), { ok: true, refusal: null }, 'the seal came back with the files');
  await operable(k, 'board');
  return { k, j };
}

test('a reconfigure stopped after its snapshot, before any file changed: rolled back, the app runs the old values', async (t) => {
  await stoppedReconfigure(t, 'reconfigure.snapshot');
});

for (const [n, written] of [
  [1, 'the compose file new, .env and .svc.json old'],
  [2, 'the compose file and .env new, .svc.json old'],
  [3, 'all three files new'],
] as const) {
  test(`a reconfigure stopped while its files are written (${written}): rolled back byte for byte`, async (t) => {
    await stoppedReconfigure(t, `reconfigure.file@${n}`);
  });
}

test('a reconfigure stopped after the database password changed inside PostgreSQL: the password is set back with the old .env', async (t) => {
  const { k, j } = await stoppedReconfigure(t, 'reconfigure.up');
  assert.ok(j.log.includes("set the password of 'board' in 'db' back to the one in the snapshot"), j.log.join('\n'));
  assert.equal(k.dbPasswords.get('board'), 'pg-old-1', 'the database has the old password again');
});

test('a connect stopped after its files were written: rolled back byte for byte, the app is on no shared network', async (t) => {
  const k = await kit(t);
  assert.equal((await k.install('notes')).state, 'succeeded');
  const before = k.tree();
  const job = await k.crash('connect.file', () => k.stacks.connect(ADMIN, 'notes', { network: SHARED }));
  assert.notDeepEqual(k.tree(), before, 'the crash left the new files');
  await k.restart();
  const j = after(k, job);
  assert.equal(j.state, 'interrupted', j.log.join('\n'));
  assert.match(j.error ?? '', ROLLED_BACK);
  assert.deepEqual(k.tree(), before);
  assert.deepEqual(k.stacks.usingNetwork(SHARED), []);
  const web = (await k.engine.listContainers({ project: 'notes' }))[0];
  assert.deepEqual(Object.keys(web?.networks ?? {}), ['notes_default']);
  await operable(k, 'notes');
});
