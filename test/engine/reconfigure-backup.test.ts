import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// The backup a reconfigure makes first (SPEC flows: reconfigure, "always: backup made"; issue #24 item 3), on the
// real engine with a real PostgreSQL: the backup is named in the job log and listed; a new release that migrates
// the database and then fails to start, with a database password changed inside the database just before, leaves
// the database as it was before the job (the backup's dump loaded back, the data folder left alone); and a backup
// that cannot be made stops the reconfigure before it changes anything. The tests run in order.
const execFileP = promisify(execFile);
const APP = 'kadetest-rb-notes';
const ROWS = 500;
const suite = useEngineSuite();
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 120_000, maxBuffer: 16 << 20 })).stdout.trim();

// `web` stands for the app: release 1 just runs; release 2 "migrates" the database (a row and a column of its own)
// and then fails to start. Its health check keeps release 2 from counting as up before it failed.
const TEMPLATE = {
  name: 'Notes with migrations',
  version: '1.0.0',
  fields: [
    { id: 'release', label: 'Release', default: '1', required: true },
    { id: 'db_password', label: 'Database password', type: 'password', secret: true, generate: true },
    { id: 'appdata_dir', label: 'Data folder', type: 'path', required: true, advanced: true },
  ],
  // `web` runs the PostgreSQL image for its client: the database to dump is declared, as such a template must.
  backup: { databases: [{ service: 'db', kind: 'postgres' }] },
};
const COMPOSE = `services:
  web:
    image: kade-test/postgres:15
    init: true
    environment:
      RELEASE: "{{release}}"
      PGPASSWORD: "{{db_password}}"
      MIGRATION: "ALTER TABLE notes ADD COLUMN migrated boolean; INSERT INTO notes (id, body) VALUES (9999, 'written by release 2')"
    command: ["sh", "-c", 'if [ "$$RELEASE" = 2 ]; then until psql -h db -U notes -d notes -v ON_ERROR_STOP=1 -c "$$MIGRATION"; do sleep 1; done; echo "release 2: migrated, now failing"; exit 3; fi; touch /tmp/ready; exec sleep infinity']
    healthcheck:
      test: ["CMD", "test", "-f", "/tmp/ready"]
      interval: 1s
      retries: 60
    labels:
      kade.test: "1"
  db:
    image: kade-test/postgres:15
    environment:
      POSTGRES_USER: notes
      POSTGRES_DB: notes
      POSTGRES_PASSWORD: "{{db_password}}"
    volumes:
      - "{{appdata_dir}}/db:/var/lib/postgresql/data"
    labels:
      kade.test: "1"
`;

const repoDir = mkdtempSync(join(tmpdir(), 'kade-rb-repo-'));
after(() => rmSync(repoDir, { recursive: true, force: true }));

const stackDir = () => join(suite.kade.baseDir, 'stacks', APP);
const files = () => ['docker-compose.yml', '.env', '.svc.json'].map((f) => readFileSync(join(stackDir(), f), 'utf8'));

async function job(method: string, path: string, body?: unknown): Promise<{ state: string; log: string[]; error: string | null }> {
  const r = await suite.api.call<{ job: { id: string } }>(method, path, body);
  assert.equal(r.status, 202, `${method} ${path}: ${JSON.stringify(r.body)}`);
  return suite.api.waitJob(r.body.job.id, 300_000);
}

async function container(service: string): Promise<{ id: string; state: string }> {
  const r = await suite.api.get<{ containers: { id: string; service: string; state: string }[] }>(`/api/stacks/${APP}`);
  const c = r.body.containers.find((x) => x.service === service);
  assert.ok(c, `${APP} has a ${service} container: ${JSON.stringify(r.body.containers)}`);
  return c;
}

const psql = async (sql: string) => docker(['exec', (await container('db')).id, 'psql', '-U', 'notes', '-d', 'notes', '-tAc', sql]);

/** A login over TCP, password checked, as the app makes it. */
async function login(password: string): Promise<boolean> {
  try {
    await docker([
      'exec',
      '-e',
      `PGPASSWORD=${password}`,
      (await container('db')).id,
      'psql',
      '-h',
      '127.0.0.1',
      '-U',
      'notes',
      '-d',
      'notes',
      '-tAc',
      'SELECT 1',
    ]);
    return true;
  } catch {
    return false;
  }
}

/** Two answers in a row (SPEC Limits). */
async function until(fn: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let ok = 0;
  while (Date.now() < deadline) {
    ok = (await fn().catch(() => false)) ? ok + 1 : 0;
    if (ok >= 2) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.fail(`${what} did not happen within ${timeoutMs} ms`);
}

/** The rows and the columns of the notes table, as one string to compare. */
const fingerprint = () =>
  psql(
    "SELECT (SELECT count(*) || ':' || md5(string_agg(id || '=' || body, ',' ORDER BY id)) FROM notes) || ' ' || (SELECT string_agg(column_name, ',' ORDER BY column_name) FROM information_schema.columns WHERE table_name = 'notes')",
  );

async function backups(): Promise<{ id: string; reason: string; databases: { service: string; kind: string }[]; verified: boolean | null }[]> {
  const r = await suite.api.get(`/api/backups?stack=${APP}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

const backupNamed = (log: string[]) => log.map((l) => /^backup (\S+) made before the reconfigure$/.exec(l)?.[1]).find((id) => id !== undefined);

let before = '';

test('an app with a web service and a real PostgreSQL holding rows is installed', async () => {
  mkdirSync(join(repoDir, 'apps', 'notes'), { recursive: true });
  writeFileSync(join(repoDir, 'VERSION'), 'v0.1.00\n');
  writeFileSync(join(repoDir, 'apps', 'notes', 'template.json'), JSON.stringify(TEMPLATE, null, 2));
  writeFileSync(join(repoDir, 'apps', 'notes', 'docker-compose.yml'), COMPOSE);
  await suite.git.addRepo('migrating', repoDir, { branch: 'main' });
  await suite.api.addSyncedRepo('migrating', suite.git.url('migrating'));
  const j = await job('POST', '/api/store/install', { repo: 'migrating', app: 'notes', name: APP, values: { db_password: 'pg-old-1' } });
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  await until(() => login('pg-old-1'), 'a login with the install password');
  await psql(`CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, ${ROWS}) g`);
  before = await fingerprint();
  assert.match(before, new RegExp(`^${ROWS}:\\S+ body,id$`));
});

test('a reconfigure makes a backup first: named in the job log, listed with its database dump', async () => {
  const j = await job('POST', `/api/stacks/${APP}/reconfigure`, { values: { release: '1' } });
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  const id = backupNamed(j.log);
  assert.ok(id, `the job log names the backup:\n${j.log.join('\n')}`);
  const named = j.log.indexOf(`backup ${id} made before the reconfigure`);
  const snapshot = j.log.findIndex((l) => /^snapshot \S+ taken/.test(l));
  assert.ok(named >= 0 && named < snapshot, `the backup comes before the first file is written:\n${j.log.join('\n')}`);
  const listed = (await backups()).find((b) => b.id === id);
  assert.ok(listed, 'the backup is in the list');
  assert.equal(listed.reason, 'reconfigure');
  assert.equal(listed.verified, true);
  assert.deepEqual(listed.databases, [{ service: 'db', kind: 'postgres' }]);
});

test('a new release that migrates the database and then fails: the database is as it was before the job', async () => {
  const beforeFiles = files();
  const dataFolder = join(suite.kade.baseDir, 'appdata', APP, 'db');
  const marker = join(dataFolder, 'kade-test-marker');
  // A file of the data folder that no dump holds: a restore of the whole folder would lose it.
  writeFileSync(marker, 'stays');
  const j = await job('POST', `/api/stacks/${APP}/reconfigure`, { values: { release: '2', db_password: 'pg-new-2' } });
  const log = j.log.join('\n');
  assert.equal(j.state, 'failed', log);
  assert.match(j.error ?? '', /failed to come up/);
  assert.ok(log.includes("changed the password of 'notes' inside the running 'db' database"), log);
  assert.ok(log.includes('release 2: migrated, now failing'), `the new release migrated before it failed:\n${log}`);
  const id = backupNamed(j.log);
  assert.ok(id, log);
  assert.ok(log.includes(`the postgres database of 'db' holds the data of backup ${id} again`), log);
  assert.ok(!log.includes('pg-new-2') && !log.includes('pg-old-1'), 'no password in the log');

  assert.deepEqual(files(), beforeFiles, 'compose file, .env and .svc.json as they were');
  await until(() => login('pg-old-1'), 'a login with the password of before the job');
  assert.equal(await login('pg-new-2'), false, 'the new password does not log in');
  assert.equal(await fingerprint(), before, 'the rows and columns of before the job: the migration is undone');
  assert.equal(readFileSync(marker, 'utf8'), 'stays', 'the data folder was not replaced');
  await until(async () => (await container('web')).state === 'running', 'release 1 running again');
});

test('a backup that cannot be made stops the reconfigure before it changes anything', async () => {
  const beforeFiles = files();
  const snapshots = (await suite.api.get<unknown[]>(`/api/stacks/${APP}/snapshots`)).body.length;
  const db = (await container('db')).id;
  // The dump tool out of reach: the backup fails on its dump.
  await docker(['exec', db, 'chmod', '000', '/usr/lib/postgresql/15/bin/pg_dumpall']);
  let j: Awaited<ReturnType<typeof job>>;
  try {
    j = await job('POST', `/api/stacks/${APP}/reconfigure`, { values: { release: '1', db_password: 'pg-never-3' } });
  } finally {
    await docker(['exec', db, 'chmod', '755', '/usr/lib/postgresql/15/bin/pg_dumpall']);
  }
  assert.equal(j.state, 'failed', j.log.join('\n'));
  assert.match(
    j.error ?? '',
    /^no backup could be made before the reconfigure, so nothing was changed: could not dump the PostgreSQL database of service 'db'/,
  );
  assert.deepEqual(files(), beforeFiles, 'nothing written');
  assert.equal((await suite.api.get<unknown[]>(`/api/stacks/${APP}/snapshots`)).body.length, snapshots, 'not even a snapshot');
  assert.equal(await login('pg-old-1'), true, 'the password is unchanged');
  assert.equal(await fingerprint(), before);
});
