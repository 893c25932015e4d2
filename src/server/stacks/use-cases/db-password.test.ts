import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { AppError } from '../../core/errors.ts';
import type { ExecOptions } from '../../engine/engine.ts';
import { createFakeEngine } from '../../engine/fake-engine.ts';
import type { Program } from '../../engine/fake-shell.ts';
import { changeDatabasePassword, changedDatabasePasswords, findDatabaseSecrets, interpolate, resolveUser } from './db-password.ts';

const gitea = parse(`
services:
  gitea:
    image: gitea/gitea:1.22.6
    environment:
      GITEA__database__PASSWD: \${DB_PASSWORD}
  db:
    image: postgres:16
    environment:
      POSTGRES_USER: gitea
      POSTGRES_DB: gitea
      POSTGRES_PASSWORD: \${DB_PASSWORD}
`);

const mariadbList = parse(`
services:
  mariadb:
    image: mariadb:11
    environment:
      - MARIADB_DATABASE=photoprism
      - MARIADB_USER=\${DB_USER}
      - MARIADB_PASSWORD=\${DB_PASSWORD}
      - MARIADB_ROOT_PASSWORD=$ROOT_PASSWORD
`);

test('a PostgreSQL password referencing .env is found with its user, in map form', () => {
  assert.deepEqual(findDatabaseSecrets(gitea), [
    { service: 'db', kind: 'postgres', account: 'user', userRef: 'gitea', passwordEnv: 'DB_PASSWORD', passwordRef: '${DB_PASSWORD}' },
  ]);
});

test('MariaDB user and root passwords are found in list form, the root one as account root', () => {
  assert.deepEqual(findDatabaseSecrets(mariadbList), [
    { service: 'mariadb', kind: 'mysql', account: 'user', userRef: '${DB_USER}', passwordEnv: 'DB_PASSWORD', passwordRef: '${DB_PASSWORD}' },
    { service: 'mariadb', kind: 'mysql', account: 'root', userRef: null, passwordEnv: 'ROOT_PASSWORD', passwordRef: '$ROOT_PASSWORD' },
  ]);
});

test('MYSQL_* names count as well, and a default in the reference is allowed', () => {
  const doc = { services: { db: { environment: { MYSQL_USER: 'app', MYSQL_PASSWORD: '${PW:-secret}', MYSQL_ROOT_PASSWORD: '${ROOT}' } } } };
  const found = findDatabaseSecrets(doc).map((s) => [s.account, s.userRef, s.passwordEnv]);
  assert.deepEqual(found, [
    ['user', 'app', 'PW'],
    ['root', null, 'ROOT'],
  ]);
});

test('passwords that are not exactly a .env reference are ignored, as are _FILE secrets and users without a name', () => {
  const doc = {
    services: {
      literal: { environment: { POSTGRES_PASSWORD: 'hunter2' } },
      mixed: { environment: { POSTGRES_PASSWORD: 'x${PW}' } },
      file: { environment: { POSTGRES_PASSWORD_FILE: '/run/secrets/pw', MARIADB_ROOT_PASSWORD_FILE: '${PW}' } },
      shell: { environment: ['POSTGRES_PASSWORD'] },
      nouser: { environment: { MARIADB_PASSWORD: '${PW}' } },
      app: { environment: { GITEA__database__PASSWD: '${PW}' } },
      empty: {},
    },
  };
  assert.deepEqual(findDatabaseSecrets(doc), []);
  assert.deepEqual(findDatabaseSecrets(null), []);
  assert.deepEqual(findDatabaseSecrets({ services: [] }), []);
});

test('the user resolves through .env; PostgreSQL without a user is postgres, a root account is root', () => {
  const [user, root] = findDatabaseSecrets(mariadbList);
  assert.ok(user && root);
  assert.equal(resolveUser(user, { DB_USER: 'photoprism' }, mariadbList), 'photoprism');
  assert.equal(resolveUser(root, {}, mariadbList), 'root');
  const [pg] = findDatabaseSecrets({ services: { db: { environment: { POSTGRES_PASSWORD: '${PW}' } } } });
  assert.ok(pg);
  assert.equal(resolveUser(pg, {}), 'postgres');
});

test('interpolation follows compose: $$, defaults and unset variables', () => {
  const env = { A: 'a', EMPTY: '' };
  assert.equal(interpolate('$${A}-${A}-$A', env), '${A}-a-a');
  assert.equal(interpolate('${EMPTY:-d}|${EMPTY-d}|${UNSET-d}|${UNSET}', env), 'd||d|');
  assert.equal(interpolate('${A:+set}|${UNSET:+set}', env), 'set|');
});

test('a changed .env value is a change, with the old user and both passwords', () => {
  const changes = changedDatabasePasswords(gitea, gitea, { DB_PASSWORD: 'old' }, { DB_PASSWORD: 'new' });
  assert.equal(changes.length, 1);
  assert.deepEqual(
    changes.map((c) => [c.secret.service, c.user, c.oldPassword, c.newPassword]),
    [['db', 'gitea', 'old', 'new']],
  );
});

test('an unchanged password, or a database the new compose no longer has, is no change', () => {
  assert.deepEqual(changedDatabasePasswords(gitea, gitea, { DB_PASSWORD: 'same' }, { DB_PASSWORD: 'same' }), []);
  const withoutDb = { services: { gitea: (gitea as { services: Record<string, unknown> }).services.gitea } };
  assert.deepEqual(changedDatabasePasswords(gitea, withoutDb, { DB_PASSWORD: 'a' }, { DB_PASSWORD: 'b' }), []);
});

test('user changes come before the root change of the same database', () => {
  const doc = { services: { db: { environment: { MARIADB_ROOT_PASSWORD: '${ROOT}', MARIADB_USER: 'app', MARIADB_PASSWORD: '${PW}' } } } };
  const changes = changedDatabasePasswords(doc, doc, { ROOT: 'r1', PW: 'p1' }, { ROOT: 'r2', PW: 'p2' });
  assert.deepEqual(
    changes.map((c) => [c.secret.account, c.user]),
    [
      ['user', 'app'],
      ['root', 'root'],
    ],
  );
});

/** A fake engine with a running container `c1` whose `psql` answers with `answer`; `calls` are the execs asked. */
async function recordingEngine(answer: Program) {
  const engine = createFakeEngine();
  engine.addImage('postgres:16');
  engine.program('psql', answer);
  await engine.startContainer(await engine.createContainer({ image: 'postgres:16', cmd: ['sleep', 'infinity'], name: 'c1' }));
  return { engine, calls: () => engine.calls.filter((c) => c.method === 'exec').map((c) => c.args[1] as ExecOptions) };
}

test('passwords go only through env and stdin, and a failure names service and user but no secret', async () => {
  const [secret] = findDatabaseSecrets(gitea);
  assert.ok(secret);
  const change = { secret, user: 'gitea', oldPassword: 'OLD-pw-1', newPassword: "NEW'pw\\2" };
  const { engine, calls } = await recordingEngine((o) => ({
    exitCode: 3,
    stdout: '',
    stderr: `psql:<stdin>:1: ERROR:  something about NEW'pw\\2\nLINE 1: ${o.stdin}`,
  }));
  const err = await changeDatabasePassword(engine, 'c1', change).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof AppError);
  assert.equal(err.code, 'db_password_failed');
  assert.deepEqual(err.params, { service: 'db', user: 'gitea' });
  assert.doesNotMatch(err.message, /OLD-pw-1|NEW'pw/);
  const [call] = calls();
  assert.ok(call);
  assert.doesNotMatch(call.cmd.join(' '), /OLD-pw-1|NEW/);
  assert.deepEqual(call.env, ['PGPASSWORD=OLD-pw-1']);
  assert.equal(call.stdin, `ALTER ROLE "gitea" WITH PASSWORD E'NEW''pw\\\\2';\n`);
});
