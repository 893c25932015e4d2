import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import Docker from 'dockerode';
import { createDockerEngine } from '../../src/server/engine/docker-engine.ts';
import {
  applyDatabasePasswordChanges,
  changeDatabasePassword,
  changedDatabasePasswords,
  type DbPasswordChange,
  findDatabaseSecrets,
} from '../../src/server/stacks/use-cases/db-password.ts';
import { requireEngine, TEST_LABEL, TEST_LABEL_VALUE } from '../helpers/engine.ts';
import { rejectsWith } from './contract-helpers.ts';

const engine = createDockerEngine({ socketPath: '/var/run/docker.sock' });
// Containers are created and paused with dockerode directly: the Engine interface has no such calls.
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const run = randomBytes(3).toString('hex');
const T = { timeout: 120_000 };
const names: string[] = [];

// Passwords with everything an escaping mistake would trip over.
const PG_OLD = 'pg-old-1';
const PG_NEW = `pg n'ew\\"$x; --ü`;
const MY_OLD = 'my-old-1';
const MY_NEW = `my n'ew\\"$x; --ü`;
const ROOT_OLD = 'root-old-1';
const ROOT_NEW = `root n'e\\w`;

async function start(kind: string, image: string, env: string[]): Promise<string> {
  const name = `kadetest-dbpw-${kind}-${run}`;
  names.push(name);
  const c = await docker.createContainer({ name, Image: image, Env: env, Labels: { [TEST_LABEL]: TEST_LABEL_VALUE }, HostConfig: { Init: true } });
  await c.start();
  return c.id;
}

/** A login over TCP from inside the container, as an app in a neighbouring container would make it. */
async function pgLogin(id: string, password: string): Promise<boolean> {
  const r = await engine.exec(id, {
    cmd: ['psql', '-h', '127.0.0.1', '-U', 'app', '-d', 'appdb', '--no-psqlrc', '-tAc', 'SELECT current_user'],
    env: [`PGPASSWORD=${password}`],
    user: 'postgres',
  });
  return r.exitCode === 0 && r.stdout.trim() === 'app';
}

async function myLogin(id: string, user: string, password: string): Promise<boolean> {
  const r = await engine.exec(id, {
    cmd: ['mariadb', '-h', '127.0.0.1', '-u', user, '-N', '-e', 'SELECT CURRENT_USER()'],
    env: [`MYSQL_PWD=${password}`],
  });
  return r.exitCode === 0 && r.stdout.trim().startsWith(`${user}@`);
}

/**
 * Ready after two successful TCP logins in a row (SPEC Limits): the images' first-start setup runs a
 * temporary server without TCP, so the first success alone can come right before a restart.
 */
async function waitReady(login: () => Promise<boolean>, what: string): Promise<void> {
  let streak = 0;
  const until = Date.now() + 90_000;
  while (streak < 2) {
    if (Date.now() > until) throw new Error(`${what} did not become ready within 90 s`);
    streak = (await login()) ? streak + 1 : 0;
    await new Promise((r) => setTimeout(r, 500));
  }
}

const pgCompose = {
  services: { db: { image: 'postgres:15', environment: { POSTGRES_USER: 'app', POSTGRES_DB: 'appdb', POSTGRES_PASSWORD: '${DB_PASSWORD}' } } },
};
const myCompose = {
  services: {
    mariadb: {
      image: 'mariadb:10',
      environment: ['MARIADB_DATABASE=appdb', 'MARIADB_USER=${DB_USER}', 'MARIADB_PASSWORD=${DB_PASSWORD}', 'MARIADB_ROOT_PASSWORD=${ROOT_PASSWORD}'],
    },
  },
};

let pg = '';
let my = '';

before(async () => {
  await requireEngine();
  [pg, my] = await Promise.all([
    start('pg', 'kade-test/postgres:15', ['POSTGRES_USER=app', `POSTGRES_PASSWORD=${PG_OLD}`, 'POSTGRES_DB=appdb']),
    start('my', 'kade-test/mariadb:10', [`MARIADB_ROOT_PASSWORD=${ROOT_OLD}`, 'MARIADB_USER=app', `MARIADB_PASSWORD=${MY_OLD}`, 'MARIADB_DATABASE=appdb']),
  ]);
  await Promise.all([waitReady(() => pgLogin(pg, PG_OLD), 'PostgreSQL'), waitReady(() => myLogin(my, 'app', MY_OLD), 'MariaDB')]);
});

after(async () => {
  // Only this file's containers: other engine tests may be running at the same time.
  for (const name of names)
    await docker
      .getContainer(name)
      .remove({ force: true, v: true })
      .catch(() => {});
});

function pgChange(oldPassword: string, newPassword: string): DbPasswordChange {
  const [change] = changedDatabasePasswords(pgCompose, pgCompose, { DB_PASSWORD: oldPassword }, { DB_PASSWORD: newPassword });
  assert.ok(change, 'the compose file yields a password change');
  return change;
}

test('a stopped-for-a-moment (paused) PostgreSQL refuses the change, and the old password keeps working', T, async () => {
  await docker.getContainer(pg).pause();
  try {
    const err = await rejectsWith(changeDatabasePassword(engine, pg, pgChange(PG_OLD, PG_NEW)), 'db_password_failed');
    assert.deepEqual(err.params, { service: 'db', user: 'app' });
    assert.ok(!err.message.includes(PG_NEW) && !err.message.includes(PG_OLD), err.message);
  } finally {
    await docker.getContainer(pg).unpause();
  }
  assert.equal(await pgLogin(pg, PG_OLD), true);
  assert.equal(await pgLogin(pg, PG_NEW), false);
});

test('when a later change of a batch fails, the earlier ones are set back', T, async () => {
  const myChanges = changedDatabasePasswords(myCompose, myCompose, { DB_USER: 'app', DB_PASSWORD: MY_OLD }, { DB_USER: 'app', DB_PASSWORD: MY_NEW });
  assert.equal(myChanges.length, 1);
  const pgStopped = pgChange(PG_OLD, PG_NEW);
  await docker.getContainer(pg).pause();
  try {
    await rejectsWith(applyDatabasePasswordChanges(engine, { mariadb: my, db: pg }, [...myChanges, pgStopped]), 'db_password_failed');
  } finally {
    await docker.getContainer(pg).unpause();
  }
  assert.equal(await myLogin(my, 'app', MY_OLD), true, 'the MariaDB user has its old password back');
  assert.equal(await myLogin(my, 'app', MY_NEW), false);
  assert.equal(await pgLogin(pg, PG_OLD), true);
});

test('PostgreSQL: the new password works over TCP and the old one no longer does', T, async () => {
  await changeDatabasePassword(engine, pg, pgChange(PG_OLD, PG_NEW));
  assert.equal(await pgLogin(pg, PG_NEW), true, 'new password logs in');
  assert.equal(await pgLogin(pg, PG_OLD), false, 'old password is refused');
});

test('MariaDB: the app user and root get their new passwords, and root keeps its socket login', T, async () => {
  const oldEnv = { DB_USER: 'app', DB_PASSWORD: MY_OLD, ROOT_PASSWORD: ROOT_OLD };
  const newEnv = { DB_USER: 'app', DB_PASSWORD: MY_NEW, ROOT_PASSWORD: ROOT_NEW };
  assert.equal(findDatabaseSecrets(myCompose).length, 2);
  const changes = changedDatabasePasswords(myCompose, myCompose, oldEnv, newEnv);
  assert.deepEqual(
    changes.map((c) => c.user),
    ['app', 'root'],
  );
  await applyDatabasePasswordChanges(engine, { mariadb: my }, changes);
  assert.equal(await myLogin(my, 'app', MY_NEW), true, 'app logs in with the new password');
  assert.equal(await myLogin(my, 'app', MY_OLD), false, 'app is refused with the old password');
  assert.equal(await myLogin(my, 'root', ROOT_NEW), true, 'root logs in with the new password');
  assert.equal(await myLogin(my, 'root', ROOT_OLD), false, 'root is refused with the old password');
  // root@localhost is `password OR unix_socket` in the MariaDB images; the change must not drop the socket login.
  const socket = await engine.exec(my, { cmd: ['mariadb', '-u', 'root', '-N', '-e', 'SELECT 1'], user: 'root' });
  assert.equal(socket.exitCode, 0, socket.stderr);
  const local = await engine.exec(my, { cmd: ['mariadb', '-u', 'root', '-N', '-e', 'SELECT 1'], env: [`MYSQL_PWD=${ROOT_NEW}`], user: 'mysql' });
  assert.equal(local.exitCode, 0, `root@localhost takes the new password: ${local.stderr}`);
});

test('MariaDB: a user the database does not have is a failure naming that user', T, async () => {
  const [user] = changedDatabasePasswords(myCompose, myCompose, { DB_USER: 'ghost', DB_PASSWORD: 'a1' }, { DB_USER: 'ghost', DB_PASSWORD: 'b2' });
  assert.ok(user);
  // The root change above left the container's own MARIADB_ROOT_PASSWORD outdated; root still gets in over the socket.
  const err = await rejectsWith(changeDatabasePassword(engine, my, user), 'db_password_failed');
  assert.equal(err.params.user, 'ghost');
  assert.match(err.message, /no such user/);
});
