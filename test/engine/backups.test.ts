import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// Backups and restore on the real engine (issue 14): an app with a real PostgreSQL and one with a real MariaDB
// holding a few thousand rows; the data destroyed (a dropped table, a deleted data folder) and found back
// whole after a restore; a corrupted archive and a restore whose start fails leave the live app as it was.
const execFileP = promisify(execFile);
const PG = 'kadetest-bk-board';
const MARIA = 'kadetest-bk-maria';
const ROWS = 3000;
const suite = useEngineSuite();
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 120_000, maxBuffer: 16 << 20 })).stdout.trim();

async function job(method: string, path: string, body?: unknown): Promise<{ state: string; log: string[]; error: string | null }> {
  const r = await suite.api.call<{ job: { id: string } }>(method, path, body);
  assert.equal(r.status, 202, `${method} ${path}: ${JSON.stringify(r.body)}`);
  return suite.api.waitJob(r.body.job.id, 300_000);
}

async function dbContainer(stack: string): Promise<string> {
  const r = await suite.api.get<{ containers: { id: string; service: string; state: string }[] }>(`/api/stacks/${stack}`);
  const c = r.body.containers.find((x) => x.service === 'db' && x.state === 'running');
  assert.ok(c, `${stack} has a running db: ${JSON.stringify(r.body.containers)}`);
  return c.id;
}

const psql = async (sql: string) => docker(['exec', await dbContainer(PG), 'psql', '-U', 'board', '-d', 'board', '-tAc', sql]);
const maria = async (sql: string) =>
  docker(['exec', '-e', 'MYSQL_PWD=maria-root-1', await dbContainer(MARIA), 'mariadb', '-u', 'root', '-N', '-B', 'board', '-e', sql]);

/** Two answers in a row: the database is up (SPEC Limits). */
async function answers(fn: () => Promise<string>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let ok = 0;
  while (Date.now() < deadline) {
    ok = (await fn().then(
      () => true,
      () => false,
    ))
      ? ok + 1
      : 0;
    if (ok >= 2) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.fail('the database did not answer');
}

const pgFingerprint = () => psql("SELECT count(*) || ':' || md5(string_agg(id || '=' || body, ',' ORDER BY id)) FROM notes");
const mariaFingerprint = () => maria("SELECT CONCAT(COUNT(*), ':', MD5(GROUP_CONCAT(CONCAT(id, '=', body) ORDER BY id SEPARATOR ','))) FROM notes");

async function backups(
  stack: string,
): Promise<{ id: string; verified: boolean | null; databases: { service: string; kind: string }[]; size: number; reason: string }[]> {
  const r = await suite.api.get(`/api/backups?stack=${stack}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

let pgPrint = '';
let mariaPrint = '';

test('apps with a real PostgreSQL and a real MariaDB hold a few thousand rows', async () => {
  await suite.git.addRepo('configure', 'test/fixtures/repos/configure', { branch: 'main' });
  await suite.api.addSyncedRepo('configure', suite.git.url('configure'));
  const a = await job('POST', '/api/store/install', { repo: 'configure', app: 'board', name: PG, values: { port: 18291, db_password: 'pg-pass-1' } });
  assert.equal(a.state, 'succeeded', a.log.join('\n'));
  const b = await job('POST', '/api/store/install', {
    repo: 'configure',
    app: 'mariaboard',
    name: MARIA,
    values: { db_password: 'maria-pass-1', db_root_password: 'maria-root-1' },
  });
  assert.equal(b.state, 'succeeded', b.log.join('\n'));
  await answers(() => psql('SELECT 1'));
  await answers(() => maria('SELECT 1'));
  await psql(`CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, ${ROWS}) g`);
  await maria(
    `SET SESSION max_recursive_iterations = 100000; CREATE TABLE notes (id INT PRIMARY KEY, body TEXT); INSERT INTO notes WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${ROWS}) SELECT g, CONCAT('note ', g) FROM s`,
  );
  pgPrint = await pgFingerprint();
  mariaPrint = await mariaFingerprint();
  assert.match(pgPrint, new RegExp(`^${ROWS}:`));
  assert.match(mariaPrint, new RegExp(`^${ROWS}:`));
});

test('a backup holds the folder, the data and a dump per database, verified, mode 0600', async () => {
  for (const stack of [PG, MARIA]) {
    const j = await job('POST', '/api/backups', { stack });
    assert.equal(j.state, 'succeeded', j.log.join('\n'));
    const [b] = await backups(stack);
    assert.ok(b, `${stack} has a backup`);
    assert.equal(b.verified, true);
    assert.deepEqual(
      b.databases.map((x) => `${x.service}:${x.kind}`),
      [stack === PG ? 'db:postgres' : 'db:mariadb'],
    );
    assert.ok(b.size > 1000);
  }
  const dir = join(suite.kade.baseDir, 'backups');
  for (const f of readdirSync(dir)) {
    const { stdout } = await execFileP('stat', ['-c', '%a', join(dir, f)]);
    assert.equal(stdout.trim(), '600', `${f} is readable by Kade only`);
  }
});

test('a dropped table is back, row for row, after a restore', async () => {
  await psql('DROP TABLE notes');
  const [b] = await backups(PG);
  assert.ok(b);
  const j = await job('POST', `/api/backups/${b.id}/restore`);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  await answers(() => psql('SELECT 1'));
  assert.equal(await pgFingerprint(), pgPrint);
});

test('a deleted data folder is back after a restore, and the dump makes the database exactly the backup’s', async () => {
  await maria(`DELETE FROM notes WHERE id > 10`);
  const stop = await job('POST', `/api/stacks/${MARIA}/stop`);
  assert.equal(stop.state, 'succeeded');
  rmSync(join(suite.kade.baseDir, 'appdata', MARIA), { recursive: true, force: true });
  const [b] = await backups(MARIA);
  assert.ok(b);
  const j = await job('POST', `/api/backups/${b.id}/restore`);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  await answers(() => maria('SELECT 1'));
  assert.equal(await mariaFingerprint(), mariaPrint);
});

test('a corrupted or truncated archive is refused; the live app is untouched and running', async () => {
  const [b] = await backups(PG);
  assert.ok(b);
  const file = join(suite.kade.baseDir, 'backups', `${b.id}.tar.gz`);
  const good = readFileSync(file);
  const bad = Buffer.from(good);
  const mid = Math.floor(bad.length / 2);
  bad[mid] = (bad[mid] ?? 0) ^ 0xff;
  writeFileSync(file, bad);
  await psql("INSERT INTO notes VALUES (999999, 'after the backup')");
  const before = await pgFingerprint();
  const j = await job('POST', `/api/backups/${b.id}/restore`);
  assert.equal(j.state, 'failed');
  assert.match(j.error ?? '', /verification/);
  assert.equal(await pgFingerprint(), before, 'the live database is untouched');
  const v = await job('POST', `/api/backups/${b.id}/verify`);
  assert.equal(v.state, 'failed');
  assert.equal((await backups(PG))[0]?.verified, false, 'the failed verification is recorded');
  writeFileSync(file, good.subarray(0, Math.floor(good.length / 3)));
  const t = await job('POST', `/api/backups/${b.id}/restore`);
  assert.equal(t.state, 'failed');
  assert.equal(await pgFingerprint(), before);
  writeFileSync(file, good);
  await psql('DELETE FROM notes WHERE id = 999999');
});

test('a restore whose start fails puts the old state back and starts it', async () => {
  // The backup is taken while the app is on a shared network that is gone by the time it is restored.
  const net = 'kadetest-bk-net';
  assert.equal((await suite.api.post('/api/networks', { name: net, subnet: '10.251.21.0/24' })).status, 201);
  assert.equal((await job('POST', `/api/stacks/${PG}/connect`, { network: net, services: ['web'] })).state, 'succeeded');
  assert.equal((await job('POST', '/api/backups', { stack: PG })).state, 'succeeded');
  const [b] = await backups(PG);
  assert.ok(b);
  assert.equal((await job('POST', `/api/stacks/${PG}/connect`, { network: net, disconnect: true })).state, 'succeeded');
  assert.equal((await suite.api.del(`/api/networks/${net}`)).status, 204);
  const compose = readFileSync(join(suite.kade.baseDir, 'stacks', PG, 'docker-compose.yml'));
  const j = await job('POST', `/api/backups/${b.id}/restore`);
  assert.equal(j.state, 'failed', j.log.join('\n'));
  assert.ok(
    j.log.some((l) => /the previous state is back/.test(l)),
    j.log.join('\n'),
  );
  assert.deepEqual(readFileSync(join(suite.kade.baseDir, 'stacks', PG, 'docker-compose.yml')), compose);
  await answers(() => psql('SELECT 1'));
  assert.equal(await pgFingerprint(), pgPrint);
  assert.ok(!readdirSync(join(suite.kade.baseDir, 'stacks')).some((n) => n.startsWith('.')), 'no staging or aside folder is left');
});

test('retention keeps the newest per app; the disk check refuses before writing; the offsite copy lands', async () => {
  const offsite = mkdtempSync(join(tmpdir(), 'kade-offsite-'));
  try {
    let r = await suite.api.put('/api/settings', { DISK_MIN_FREE_GB: 1_000_000 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const refused = await suite.api.post('/api/backups', { stack: MARIA });
    assert.equal(refused.status, 507);
    assert.equal(refused.body.code, 'disk_full');
    assert.match(refused.body.detail, /needs up to .* GB, .* GB is free .* must stay free/);
    r = await suite.api.put('/api/settings', { DISK_MIN_FREE_GB: 0, BACKUP_OFFSITE_DIR: offsite });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const s = await suite.api.put('/api/backups/schedule', { retention_count: 2 });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    for (let i = 0; i < 2; i++) assert.equal((await job('POST', '/api/backups', { stack: MARIA })).state, 'succeeded');
    const kept = await backups(MARIA);
    assert.equal(kept.length, 2, kept.map((x) => x.id).join(', '));
    assert.ok(existsSync(join(offsite, `${kept[0]?.id}.tar.gz`)), 'the newest backup was copied offsite');
  } finally {
    rmSync(offsite, { recursive: true, force: true });
  }
});

test('with BACKUP_COMPRESSION=zstd the next backup is a .tar.zst, downloaded under its name, listed beside the gzip ones, and restores the database', async () => {
  const r = await suite.api.put('/api/settings', { BACKUP_COMPRESSION: 'zstd', BACKUP_OFFSITE_DIR: '' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  try {
    const made = await job('POST', '/api/backups', { stack: PG });
    assert.equal(made.state, 'succeeded', made.log.join('\n'));
    const [b, older] = await backups(PG);
    assert.ok(b && older);
    const dir = join(suite.kade.baseDir, 'backups');
    const file = join(dir, `${b.id}.tar.zst`);
    assert.deepEqual(readFileSync(file).subarray(0, 4), Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), 'zstd magic bytes');
    assert.equal(b.verified, true);
    assert.ok(existsSync(join(dir, `${older.id}.tar.gz`)), 'the older gzip backup is listed beside it');
    assert.equal((await backups(PG)).length, 2, 'retention (2 per app) counts both kinds');
    const res = await fetch(`${suite.api.base}/api/backups/${b.id}/download`, { headers: { cookie: suite.api.cookie } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/zstd');
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="${b.id}.tar.zst"`);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), readFileSync(file));
    await psql('DROP TABLE notes');
    const j = await job('POST', `/api/backups/${b.id}/restore`);
    assert.equal(j.state, 'succeeded', j.log.join('\n'));
    await answers(() => psql('SELECT 1'));
    assert.equal(await pgFingerprint(), pgPrint);
  } finally {
    await suite.api.put('/api/settings', { BACKUP_COMPRESSION: 'gzip' });
  }
});
