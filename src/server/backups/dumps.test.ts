import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { test } from 'node:test';
import { parse } from 'yaml';
import { TemplateFile } from '../../shared/template.ts';
import { AppError } from '../core/errors.ts';
import type { ExecStreamOptions } from '../engine/engine.ts';
import { createFakeEngine } from '../engine/fake-engine.ts';
import { findDatabaseSecrets } from '../stacks/use-cases/db-password.ts';
import { ownRoleLinesDropped, toolReason } from './dump-tools.ts';
import { type DatabaseSpec, dumpDatabase, findDatabases, planDumps, waitUntilDumpable } from './dumps.ts';

const nextcloud = parse(`
services:
  app:
    image: nextcloud:29
    environment:
      POSTGRES_HOST: db
      POSTGRES_USER: \${DB_USER}
      POSTGRES_PASSWORD: \${DB_PASSWORD}
  db:
    image: docker.io/library/postgres:16-alpine
    environment:
      POSTGRES_USER: \${DB_USER}
      POSTGRES_PASSWORD: \${DB_PASSWORD}
      POSTGRES_DB: nextcloud
  exporter:
    image: prometheuscommunity/postgres-exporter:v0.15.0
    environment:
      DATA_SOURCE_PASS: \${DB_PASSWORD}
`);

test('a database is found by its image or its server variables; an app naming a database host is a client', () => {
  assert.deepEqual(findDatabases(nextcloud, { DB_USER: 'nc', DB_PASSWORD: 'pw 1' }), [
    { service: 'db', kind: 'postgres', user: 'nc', password: 'pw 1', database: 'nextcloud' },
  ]);
  const doc = {
    services: {
      vectors: { image: 'ghcr.io/immich-app/postgres:14-vectorchord0.4.3@sha256:0123', environment: { POSTGRES_PASSWORD: 'literal' } },
      custom: { image: 'example/own-build:1', environment: ['MARIADB_ROOT_PASSWORD=r00t', 'MARIADB_DATABASE=shop'] },
      web: { image: 'nginx:1', environment: { MYSQL_PASSWORD: 'x', DB_HOST: 'custom' } },
      none: { image: 'redis:7' },
    },
  };
  assert.deepEqual(findDatabases(doc, {}), [
    { service: 'vectors', kind: 'postgres', user: 'postgres', password: 'literal', database: 'postgres' },
    { service: 'custom', kind: 'mariadb', user: 'root', password: 'r00t', database: 'shop' },
  ]);
});

test('the shared detection also keeps a client app out of the password changes of a reconfigure', () => {
  assert.deepEqual(
    findDatabaseSecrets(nextcloud).map((s) => s.service),
    ['db'],
  );
});

test('MariaDB logs in as root with a root password, else as the app user, else as root over the socket', () => {
  const env = { ROOT: 'r-pw', PW: 'u-pw', USER: 'shop' };
  const withRoot = {
    services: { db: { image: 'mariadb:11', environment: { MARIADB_ROOT_PASSWORD: '${ROOT}', MARIADB_USER: '${USER}', MARIADB_PASSWORD: '${PW}' } } },
  };
  assert.deepEqual(findDatabases(withRoot, env)[0], { service: 'db', kind: 'mariadb', user: 'root', password: 'r-pw', database: null });
  const noRoot = {
    services: {
      db: { image: 'mysql:8', environment: ['MYSQL_RANDOM_ROOT_PASSWORD=1', 'MYSQL_USER=${USER}', 'MYSQL_PASSWORD=${PW:-x}', 'MYSQL_DATABASE=shop'] },
    },
  };
  assert.deepEqual(findDatabases(noRoot, env)[0], { service: 'db', kind: 'mariadb', user: 'shop', password: 'u-pw', database: 'shop' });
  const bare = { services: { db: { image: 'mariadb:10', environment: { MARIADB_ALLOW_EMPTY_ROOT_PASSWORD: '1' } } } };
  assert.deepEqual(findDatabases(bare, {})[0], { service: 'db', kind: 'mariadb', user: 'root', password: '', database: null });
  // `KEY` without a value comes from the environment compose runs in, which includes `.env`.
  const passedOn = { services: { db: { image: 'postgres:16', environment: ['POSTGRES_PASSWORD', 'POSTGRES_USER=app'] } } };
  assert.deepEqual(findDatabases(passedOn, { POSTGRES_PASSWORD: 'from-env' })[0], {
    service: 'db',
    kind: 'postgres',
    user: 'app',
    password: 'from-env',
    database: 'app',
  });
});

test('a template declaration replaces the detection; its variables come from the service, else from .env', () => {
  const doc = {
    services: {
      database: { image: 'example/pg-fork:3', environment: { PG_ADMIN: '${ADMIN}', PG_DATABASE: 'app' } },
      db: { image: 'postgres:16', environment: { POSTGRES_PASSWORD: '${X}' } },
    },
  };
  const template = {
    backup: {
      databases: [
        { service: 'database', kind: 'postgres' as const, user_env: 'PG_ADMIN', password_env: 'PG_ADMIN_PASSWORD', database_env: 'PG_DATABASE' },
        { service: 'gone', kind: 'mariadb' as const },
      ],
    },
  };
  const env = { ADMIN: 'boss', PG_ADMIN_PASSWORD: 'from .env', X: 'x' };
  assert.deepEqual(findDatabases(doc, env, null, template), [{ service: 'database', kind: 'postgres', user: 'boss', password: 'from .env', database: 'app' }]);
  assert.deepEqual(findDatabases(doc, env, null, { backup: { databases: [] } }), [], 'an empty declaration: nothing to dump');
  assert.deepEqual(
    findDatabases(doc, env, { adopted: { path: '/x', project: 'p' } }, template).map((s) => s.service),
    ['db'],
    'an adopted app is detected, whatever a template says',
  );
});

test('the template schema takes a backup declaration and refuses a wrong one', () => {
  const base = { name: 'App', version: '1' };
  const ok = TemplateFile.safeParse({ ...base, backup: { databases: [{ service: 'db', kind: 'mariadb', password_env: 'MARIADB_ROOT_PASSWORD' }] } });
  assert.ok(ok.success, JSON.stringify(ok.error?.issues));
  for (const databases of [
    [{ service: 'db', kind: 'sqlite' }],
    [{ service: 'db', kind: 'postgres', user: 'x' }],
    [{ service: '../db', kind: 'postgres' }],
    [{ service: 'db', kind: 'postgres', password_env: 'A-B' }],
    [
      { service: 'db', kind: 'postgres' },
      { service: 'db', kind: 'mariadb' },
    ],
  ]) {
    assert.equal(TemplateFile.safeParse({ ...base, backup: { databases } }).success, false, JSON.stringify(databases));
  }
});

test('planDumps pairs databases with running containers and reports the others as stopped', () => {
  const spec = (service: string): DatabaseSpec => ({ service, kind: 'postgres', user: 'u', password: 'p', database: null });
  assert.deepEqual(planDumps([spec('db'), spec('cache-db')], { db: 'c1', web: 'c2' }), {
    dumps: [{ spec: spec('db'), containerId: 'c1', name: 'db.sql' }],
    skipped: [{ service: 'cache-db', reason: 'stopped' }],
  });
});

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const c of stream) out += c.toString();
  return out;
}

test('a load drops only the dump’s own role lines before the first \\connect, however the stream is cut', async () => {
  const dump = [
    'SET standard_conforming_strings = on;',
    'DROP DATABASE IF EXISTS app;',
    'DROP ROLE IF EXISTS app;',
    'DROP ROLE IF EXISTS other;',
    'CREATE ROLE app;',
    'ALTER ROLE app WITH SUPERUSER LOGIN;',
    'CREATE ROLE other;',
    '\\connect template1',
    'CREATE ROLE app;',
    'COPY t (a) FROM stdin;',
    'DROP ROLE IF EXISTS app;',
    '\\.',
    '',
  ].join('\n');
  const expected = dump.replace('DROP ROLE IF EXISTS app;\n', '').replace('CREATE ROLE app;\n', '');
  const bytes = Buffer.from(dump);
  for (const size of [1, 3, 7, bytes.length]) {
    const parts = [];
    for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
    assert.equal(await text(Readable.from(parts).pipe(ownRoleLinesDropped('app'))), expected, `pieces of ${size}`);
  }
  const quoted = 'DROP ROLE IF EXISTS "My ""User""";\nCREATE ROLE "My ""User""";\nCREATE ROLE x;\n';
  assert.equal(await text(Readable.from([quoted]).pipe(ownRoleLinesDropped('My "User"'))), 'CREATE ROLE x;\n');
});

test('a tool’s reason is its error line, not the notices before it, with passwords masked', () => {
  const stderr = 'NOTICE:  database "x" does not exist, skipping\npsql:<stdin>:9: ERROR:  role "s3cret-pw" is odd\nLINE 1: ALTER ROLE s3cret-pw\n';
  assert.equal(toolReason(stderr, ['s3cret-pw']), 'psql:<stdin>:9: ERROR:  role "***" is odd');
  assert.equal(toolReason('', []), 'the database client gave no reason');
});

test('a dump that exits non-zero makes its stream fail and names the service; the password stays in env', async () => {
  const spec: DatabaseSpec = { service: 'db', kind: 'postgres', user: 'app', password: 'pw-Secret-9', database: 'app' };
  const engine = createFakeEngine();
  engine.addImage('postgres:16');
  engine.program('pg_dumpall', () => ({
    exitCode: 1,
    stdout: '-- partial dump\n',
    stderr: 'pg_dumpall: error: query failed: password pw-Secret-9 is wrong\n',
  }));
  await engine.startContainer(await engine.createContainer({ image: 'postgres:16', cmd: ['sleep', 'infinity'], name: 'c1' }));
  const { stream, done } = await dumpDatabase(engine, 'c1', spec);
  const runs = engine.calls.filter((c) => c.method === 'execStream').map((c) => c.args[1] as ExecStreamOptions);
  await assert.rejects(pipeline(stream, new Writable({ write: (_c, _e, next) => next() })));
  const err = await done.then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof AppError);
  assert.equal(err.code, 'db_dump_failed');
  assert.equal(err.message, "could not dump the PostgreSQL database of service 'db': exit code 1: pg_dumpall: error: query failed: password *** is wrong");
  assert.deepEqual(runs[0]?.cmd, ['pg_dumpall', '--clean', '--if-exists', '--no-password', '-U', 'app']);
  assert.deepEqual(runs[0]?.env, ['PGPASSWORD=pw-Secret-9']);
});

test('a database about to be dumped is given time to answer first; one that never answers is dumped anyway', async () => {
  const spec: DatabaseSpec = { service: 'db', kind: 'postgres', user: 'app', password: 'pw-Secret-9', database: 'app' };
  const engine = createFakeEngine();
  engine.addImage('postgres:16');
  await engine.startContainer(await engine.createContainer({ image: 'postgres:16', cmd: ['sleep', 'infinity'], name: 'c1' }));
  let asked = 0;
  // Not listening for the first two probes, as a server in its first-start setup.
  engine.program('psql', (r) => {
    asked += 1;
    if (asked <= 2) return { exitCode: 2, stderr: 'psql: error: connection to server at "127.0.0.1", port 5432 failed: Connection refused\n' };
    return { exitCode: 0, stdout: r.args.includes('127.0.0.1') ? '1\n' : '' };
  });
  await waitUntilDumpable(engine, 'c1', spec, { timeoutMs: 5_000, intervalMs: 1 });
  assert.equal(asked, 3, 'asked until the first answer, and no more');
  let refused = 0;
  engine.program('psql', () => {
    refused += 1;
    return { exitCode: 2, stderr: 'psql: error: Connection refused\n' };
  });
  await waitUntilDumpable(engine, 'c1', spec, { timeoutMs: 50, intervalMs: 5 });
  assert.ok(refused > 1, 'asked again until the deadline, then gave way to the dump without an error');
});
