import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { ADMIN, createStacksKit, type StacksKit } from '../../../../test/helpers/stacks-kit.ts';

// Reconfigure over the fakes (test/helpers/stacks-kit.ts): new values in the files and the running app, a changed
// database password set inside the running database first; any failure puts every file back byte for byte, the
// password back, and the previous configuration running again.

/** `board` installed with a title and a database password; the kit is disposed after the test. */
async function board(t: { after(fn: () => void): void }): Promise<StacksKit> {
  const k = await createStacksKit();
  t.after(() => k.dispose());
  const job = await k.install('board', 'board', { title: 'First', db_password: 'pg-old-1' });
  assert.equal(job.state, 'succeeded', job.error ?? '');
  return k;
}

const composeOf = (k: StacksKit) => parse(k.read(join(k.paths.library, 'board', 'docker-compose.yml')) ?? '');

/** The environment the running container of `service` was created with. */
async function envOf(k: StacksKit, service: string): Promise<Record<string, string>> {
  const id = (await k.running('board'))[service];
  assert.ok(id, `${service} runs`);
  const env = ((await k.engine.inspectContainer(id)) as { Config: { Env: string[] } }).Config.Env;
  return Object.fromEntries(env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

const logOf = (k: StacksKit, id: string) => k.jobs.readLog(id, 0).lines;

test('new values land in the files and the running app; a new database password is set inside the running database first', async (t) => {
  const k = await board(t);
  const job = await k.done(k.stacks.reconfigure(ADMIN, 'board', { values: { title: 'Second', db_password: 'pg-new-2' } }));
  assert.equal(job.state, 'succeeded', logOf(k, job.id).join('\n'));

  assert.equal(k.env('board').DB_PASSWORD, 'pg-new-2', 'the new password is in .env');
  assert.equal(composeOf(k).services.web.environment.TITLE, 'Second');
  assert.equal(JSON.parse(k.read(join(k.paths.library, 'board', '.svc.json')) ?? '').values.title, 'Second');
  assert.equal(k.dbPasswords.get('board'), 'pg-new-2', 'the database took the new password');
  assert.equal((await envOf(k, 'web')).TITLE, 'Second', 'the web container was recreated with the new title');
  assert.equal((await envOf(k, 'db')).POSTGRES_PASSWORD, 'pg-new-2');
  assert.deepEqual(
    k.stacks.store.snapshots.list('board').map((s) => s.reason),
    ['reconfigure'],
  );
  const log = logOf(k, job.id).join('\n');
  assert.ok(log.includes("changed the password of 'board' inside the running 'db' database"), log);
  assert.ok(!log.includes('pg-new-2') && !log.includes('pg-old-1'), 'no password in the log');
});

test('compose failing to start the new files puts every file back byte for byte and runs the previous configuration', async (t) => {
  const k = await board(t);
  const before = k.tree();
  k.compose.failOn('up', { nth: 1 });
  const job = await k.done(k.stacks.reconfigure(ADMIN, 'board', { values: { title: 'Second' } }));
  assert.equal(job.state, 'failed');
  assert.match(job.error ?? '', /fake failure/);

  assert.deepEqual(k.tree(), before, 'compose file, .env and .svc.json are the old ones, byte for byte and mode for mode');
  assert.deepEqual(k.stacks.filesVerdict(ADMIN, 'board'), { ok: true, refusal: null }, 'the seal came back with the files');
  assert.deepEqual(
    k.compose.calls
      .filter((c) => c.project === 'board')
      .slice(-3)
      .map((c) => c.op),
    ['validate', 'up', 'up'],
    'the failed up, then the old files started again',
  );
  assert.equal((await envOf(k, 'web')).TITLE, 'First');
  assert.ok(logOf(k, job.id).some((l) => /^restored snapshot \S+: the files are as they were$/.test(l)));
  assert.deepEqual(
    k.events.filter((e) => e.type === 'stack.reconfigured').map((e) => e.status),
    ['failed'],
  );
});

test('a database password changed before the failing start is set back inside the running database, with the old .env', async (t) => {
  const k = await board(t);
  const before = k.tree();
  k.compose.failOn('up', { nth: 1 });
  const job = await k.done(k.stacks.reconfigure(ADMIN, 'board', { values: { db_password: 'pg-new-2' } }));
  assert.equal(job.state, 'failed');
  assert.equal(k.dbPasswords.get('board'), 'pg-old-1', 'the database has its old password again');
  assert.deepEqual(k.tree(), before);
  assert.equal(k.env('board').DB_PASSWORD, 'pg-old-1');
  const log = logOf(k, job.id);
  assert.ok(log.includes("changed the password of 'board' inside the running 'db' database"), log.join('\n'));
  assert.ok(log.includes("set the password of 'board' in 'db' back"), log.join('\n'));
});

test('the database refusing the password change changes nothing: the files stay, its password stays, nothing restarts', async (t) => {
  const k = await board(t);
  // Someone changed the password inside the database by hand: the one in .env no longer logs in.
  k.dbPasswords.set('board', 'changed-by-hand');
  const before = k.tree();
  const containers = await k.running('board');
  const job = await k.done(k.stacks.reconfigure(ADMIN, 'board', { values: { title: 'Second', db_password: 'pg-new-2' } }));
  assert.equal(job.state, 'failed');
  assert.equal(job.error, "could not change the database password of 'board' in service 'db': psql: error: password authentication failed for user \"board\"");
  assert.deepEqual(k.tree(), before);
  assert.equal(k.dbPasswords.get('board'), 'changed-by-hand');
  assert.deepEqual(await k.running('board'), containers, 'the same containers run');
});

test('the disk filling while the new files are written fails the reconfigure with every file as it was', async (t) => {
  const k = await board(t);
  const before = k.tree();
  // The snapshot is written; the three files are one write, refused whole.
  k.failWrite(join('board', '.svc.json'));
  const job = await k.done(k.stacks.reconfigure(ADMIN, 'board', { values: { title: 'Second' } }));
  assert.equal(job.state, 'failed');
  assert.match(job.error ?? '', /^disk full: there is no space left to write /);
  assert.deepEqual(k.tree(), before);
  assert.equal(k.stacks.store.snapshots.list('board').length, 1, 'the snapshot was taken first');
  assert.ok(logOf(k, job.id).some((l) => /^restored snapshot \S+: the files are as they were$/.test(l)));
  assert.equal((await envOf(k, 'web')).TITLE, 'First');
  assert.deepEqual(
    k.compose.calls.filter((c) => c.project === 'board').map((c) => c.op),
    ['validate', 'up'],
    'compose ran only for the install',
  );
});
