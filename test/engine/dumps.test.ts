import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { type DatabaseSpec, dumpDatabase, findDatabases, loadDump, planDumps, waitUntilAnswers } from '../../src/server/backups/dumps.ts';
import { createDockerEngine } from '../../src/server/engine/docker-engine.ts';
import type { Engine, ExecOptions, ExecStreamOptions } from '../../src/server/engine/engine.ts';
import { parseEnv } from '../../src/server/stacks/store/env-file.ts';
import { useEngineSuite } from '../helpers/engine-suite.ts';
import { rejectsWith } from './contract-helpers.ts';

// Database dumps (issue 14) against a real PostgreSQL (board) and a real MariaDB (mariaboard) installed from
// the configure fixture repo: a few thousand rows dumped to a file, the data destroyed, the dump loaded, every
// row found back. The tests run in order and build on each other.
const execFileP = promisify(execFile);
const PG = 'kadetest-dump-board';
const MARIA = 'kadetest-dump-maria';
const ROWS = 4000;
const PG_PASSWORD = 'pg-dump-pw-1';
const ROOT_PASSWORD = 'maria-dump-root-1';
const T = { timeout: 300_000 };
const suite = useEngineSuite();
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 120_000, maxBuffer: 16 << 20 })).stdout.trim();

/** The real engine, with every command line it is asked to run kept, to check no password is in one. */
const real = createDockerEngine({ socketPath: '/var/run/docker.sock' });
const commandLines: string[][] = [];
const engine: Pick<Engine, 'exec' | 'execStream'> = {
  exec: (id: string, o: ExecOptions) => {
    commandLines.push(o.cmd);
    return real.exec(id, o);
  },
  execStream: (id: string, o: ExecStreamOptions) => {
    commandLines.push(o.cmd);
    return real.execStream(id, o);
  },
};

const work = mkdtempSync(join(tmpdir(), 'kade-dumps-'));
after(() => rmSync(work, { recursive: true, force: true }));

async function job(method: string, path: string, body?: unknown): Promise<{ state: string; log: string[] }> {
  const r = await suite.api.call<{ job: { id: string } }>(method, path, body);
  assert.equal(r.status, 202, `${method} ${path}: ${JSON.stringify(r.body)}`);
  return suite.api.waitJob(r.body.job.id, 300_000);
}

/** The running container of each service of a stack, as the backup service hands them over. */
async function running(stack: string): Promise<Record<string, string>> {
  const r = await suite.api.get<{ containers: { id: string; service: string; state: string }[] }>(`/api/stacks/${stack}`);
  return Object.fromEntries(r.body.containers.filter((c) => c.state === 'running').map((c) => [c.service, c.id]));
}

async function dbOf(stack: string): Promise<string> {
  const id = (await running(stack)).db;
  assert.ok(id, `${stack} has a running db`);
  return id;
}

/** What the backup service reads from the stack folder. */
function specOf(stack: string): DatabaseSpec {
  const dir = join(suite.kade.baseDir, 'stacks', stack);
  const doc = parse(readFileSync(join(dir, 'docker-compose.yml'), 'utf8'));
  const env = parseEnv(readFileSync(join(dir, '.env'), 'utf8'));
  const specs = findDatabases(doc, env);
  assert.equal(specs.length, 1, JSON.stringify(specs.map((s) => s.service)));
  return specs[0] as DatabaseSpec;
}

const psql = async (sql: string) =>
  docker(['exec', '-u', 'postgres', await dbOf(PG), 'psql', '-U', 'board', '-d', 'board', '-v', 'ON_ERROR_STOP=1', '-tAc', sql]);
const maria = async (sql: string) =>
  docker(['exec', '-e', `MYSQL_PWD=${ROOT_PASSWORD}`, await dbOf(MARIA), 'mariadb', '-u', 'root', '-N', '-B', 'board', '-e', sql]);

// Every row in one checksum: text with quotes, backslashes, tabs, newlines, non-ASCII and NULLs.
const pgFingerprint = () =>
  psql(
    "SELECT count(*) || ':' || md5(string_agg(id || '=' || coalesce(body, '<null>') || '=' || coalesce(encode(raw, 'hex'), '<null>'), ',' ORDER BY id)) FROM notes",
  );
const mariaFingerprint = () =>
  maria(
    "SET SESSION group_concat_max_len = 67108864; SELECT CONCAT(COUNT(*), ':', MD5(GROUP_CONCAT(CONCAT(id, '=', IFNULL(body, '<null>'), '=', IFNULL(HEX(raw), '<null>')) ORDER BY id SEPARATOR ','))) FROM notes",
  );

/** Dumps through dumpDatabase into a file; returns its path. */
async function dumpToFile(stack: string, spec: DatabaseSpec): Promise<string> {
  const file = join(work, `${stack}.sql`);
  const { stream, done } = await dumpDatabase(engine, await dbOf(stack), spec);
  await pipeline(stream, createWriteStream(file, { mode: 0o600 }));
  await done;
  return file;
}

let pgSpec: DatabaseSpec;
let mariaSpec: DatabaseSpec;

test('board and mariaboard are installed from the configure repo and answer', T, async () => {
  await suite.git.addRepo('configure', 'test/fixtures/repos/configure', { branch: 'main' });
  const add = await suite.api.post('/api/repos', { name: 'Configure', url: suite.git.url('configure'), branch: 'main', subdirectory: 'apps' });
  assert.equal(add.status, 202, JSON.stringify(add.body));
  assert.equal((await suite.api.waitJob(add.body.job.id)).state, 'succeeded');
  const installs = await Promise.all([
    job('POST', '/api/store/install', { repo: 'configure', app: 'board', name: PG, values: { db_password: PG_PASSWORD } }),
    job('POST', '/api/store/install', {
      repo: 'configure',
      app: 'mariaboard',
      name: MARIA,
      values: { db_root_password: ROOT_PASSWORD, db_password: 'maria-app-1' },
    }),
  ]);
  for (const j of installs) assert.equal(j.state, 'succeeded', j.log.join('\n'));

  pgSpec = specOf(PG);
  mariaSpec = specOf(MARIA);
  assert.deepEqual(pgSpec, { service: 'db', kind: 'postgres', user: 'board', password: PG_PASSWORD, database: 'board' });
  assert.deepEqual(mariaSpec, { service: 'db', kind: 'mariadb', user: 'root', password: ROOT_PASSWORD, database: 'board' });
  await Promise.all([
    waitUntilAnswers(engine, await dbOf(PG), pgSpec, { timeoutMs: 120_000, intervalMs: 500 }),
    waitUntilAnswers(engine, await dbOf(MARIA), mariaSpec, { timeoutMs: 120_000, intervalMs: 500 }),
  ]);
});

test('PostgreSQL: a dropped table is back row for row after the dump is loaded, with an app session open', T, async () => {
  await psql(
    `CREATE TABLE notes (id int PRIMARY KEY, body text, raw bytea);
     INSERT INTO notes SELECT g, CASE WHEN g % 97 = 0 THEN NULL ELSE 'note ' || g || E' tab\\t quote'' back\\\\ nl\\n ü €' END,
       CASE WHEN g % 89 = 0 THEN NULL ELSE decode(md5(g::text), 'hex') END FROM generate_series(1, ${ROWS}) g`,
  );
  const before = await pgFingerprint();
  assert.match(before, new RegExp(`^${ROWS}:`));

  const file = await dumpToFile(PG, pgSpec);
  assert.match(readFileSync(file, 'utf8'), /DROP DATABASE IF EXISTS board;/);

  await psql('DROP TABLE notes');
  await psql('CREATE TABLE made_after_the_dump (x int)');
  // An app still connected to its database, as after a restore's start.
  await docker(['exec', '-d', '-u', 'postgres', await dbOf(PG), 'psql', '-U', 'board', '-d', 'board', '-c', 'SELECT pg_sleep(600)']);
  await loadDump(engine, await dbOf(PG), pgSpec, createReadStream(file));

  assert.equal(await pgFingerprint(), before);
  assert.equal(await psql("SELECT count(*) FROM pg_tables WHERE tablename = 'made_after_the_dump'"), '0', 'the database holds exactly the dump');
  await waitUntilAnswers(engine, await dbOf(PG), pgSpec, { timeoutMs: 30_000, intervalMs: 200 });
});

test('PostgreSQL: a load that fails says why and leaves the databases open to the app', T, async () => {
  const bad = Readable.from(['SELECT 1;\n', 'DROP TABLE no_such_table_here;\n']);
  const err = await rejectsWith(loadDump(engine, await dbOf(PG), pgSpec, bad), 'db_load_failed');
  assert.match(err.message, /service 'db'.*no_such_table_here.*does not exist/);
  assert.equal(await psql("SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database WHERE datallowconn"), 'board,postgres,template1');
});

test('MariaDB: deleted and changed rows are back exactly after the dump is loaded', T, async () => {
  await maria(
    `CREATE TABLE notes (id INT PRIMARY KEY, body TEXT, raw VARBINARY(32));
     INSERT INTO notes
       SELECT seq, IF(seq % 97 = 0, NULL, CONCAT('note ', seq, ' tab\\t quote'' back\\\\ nl\\n ü €')), IF(seq % 89 = 0, NULL, UNHEX(MD5(seq)))
       FROM seq_1_to_${ROWS}`,
  );
  const before = await mariaFingerprint();
  assert.match(before, new RegExp(`^${ROWS}:`));

  const file = await dumpToFile(MARIA, mariaSpec);
  await maria(
    "DELETE FROM notes WHERE id > 100; UPDATE notes SET body = 'changed', raw = NULL WHERE id <= 10; INSERT INTO notes VALUES (999999, 'after', NULL)",
  );
  await maria("CREATE USER 'made_after'@'%' IDENTIFIED BY 'x1-after'");
  assert.notEqual(await mariaFingerprint(), before);

  await loadDump(engine, await dbOf(MARIA), mariaSpec, createReadStream(file));
  assert.equal(await mariaFingerprint(), before);
  assert.equal(await maria("SELECT COUNT(*) FROM mysql.user WHERE user = 'made_after'"), '0', 'the users are the dump’s too');
  await waitUntilAnswers(engine, await dbOf(MARIA), mariaSpec, { timeoutMs: 30_000, intervalMs: 200 });
});

test('a wrong password is a clear error that names the service and holds no password', T, async () => {
  const wrong = 'Wr0ng-pass-7731';
  const pgErr = await rejectsWith(
    waitUntilAnswers(engine, await dbOf(PG), { ...pgSpec, password: wrong }, { timeoutMs: 2_000, intervalMs: 200 }),
    'db_load_failed',
  );
  assert.match(pgErr.message, /service 'db'.*password authentication failed for user "board"/);
  assert.ok(!pgErr.message.includes(wrong), pgErr.message);

  const appUser = { ...mariaSpec, user: 'board', password: wrong };
  const { stream, done } = await dumpDatabase(engine, await dbOf(MARIA), appUser);
  const sink = new Writable({ write: (_c, _e, next) => next() });
  await assert.rejects(pipeline(stream, sink));
  const myErr = await rejectsWith(done, 'db_dump_failed');
  assert.match(myErr.message, /MariaDB\/MySQL database of service 'db': exit code \d+: .*Access denied for user 'board'/);
  assert.ok(!myErr.message.includes(wrong), myErr.message);
  assert.deepEqual(myErr.params, { service: 'db', kind: 'mariadb' });

  const passwords = [PG_PASSWORD, ROOT_PASSWORD, wrong];
  assert.ok(commandLines.length > 5);
  for (const cmd of commandLines) assert.ok(!passwords.some((p) => cmd.join(' ').includes(p)), `a password in ${cmd.join(' ')}`);
});

test('a stopped database container is reported as skipped, the running one is planned', T, async () => {
  const stop = await job('POST', `/api/stacks/${MARIA}/stop`);
  assert.equal(stop.state, 'succeeded', stop.log.join('\n'));
  const maria = planDumps([mariaSpec], await running(MARIA));
  assert.deepEqual(maria, { dumps: [], skipped: [{ service: 'db', reason: 'stopped' }] });
  const pg = planDumps([pgSpec], await running(PG));
  assert.deepEqual(pg.skipped, []);
  assert.deepEqual(
    pg.dumps.map((d) => [d.spec.service, d.name, d.containerId]),
    [['db', 'db.sql', await dbOf(PG)]],
  );
});
