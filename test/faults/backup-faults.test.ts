import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { diedAtFailpoint, type KadeChild, startKadeChild } from '../helpers/kade-child.ts';
import { type SocketProxy, startSocketProxy } from '../helpers/socket-proxy.ts';
import { docker, readFiles, startJob } from './plain-app.ts';

// Faults during backups and restores (issue #12): Kade killed at each step of a restore, the engine gone
// while compose starts the restored app or a backup starts pg_dumpall, a full disk while the archive is
// written. Kade runs as a child process (killable the hard way) that talks to the engine through a socket
// proxy the test can cut. After each fault the app is wholly its old state (folder byte for byte, data
// folder, running container), no staging or moved-aside folder and no partial archive is left, and the
// job says what happened.
const execFileP = promisify(execFile);
const APP = 'kadetest-bf-hello';
const root = mkdtempSync(join(tmpdir(), 'kade-bf-'));
const stateDir = join(root, 'state');
const baseDir = join(root, 'base');
const libraryDir = join(baseDir, 'stacks');
const dataDir = join(baseDir, 'appdata');
const backupDir = join(baseDir, 'backups');
const stackDir = join(libraryDir, APP);
const appData = join(dataDir, APP);
/** What the resolver at start says of a restore a crash cut off. */
const ROLLED_BACK = 'the restore was cut off: the app’s folder and data were put back as they were before it';
let proxy: SocketProxy | undefined;
let git: GitServer | undefined;
let live: KadeChild | undefined;
/** The backup of APP: message `backed-up`, data `data of the backup`. */
let backupId = '';
/** A small tmpfs BACKUP_DIR is put on for the full-disk case. */
const SKIP = process.getuid?.() === 0 ? false : 'mounting a tmpfs as BACKUP_DIR needs root (CI runs the tests as root)';
const small = join(baseDir, 'small-disk');
const PAGE = 4096;
let mounted = false;

/** A Kade on the test's folders, through the socket proxy unless `direct` (the proxy does not pass on a half-closed stdin). */
async function start(failpoint?: string, direct = false): Promise<{ k: KadeChild; api: ApiClient }> {
  const env: Record<string, string> = direct ? {} : { DOCKER_HOST: (proxy as SocketProxy).dockerHost };
  const k = await startKadeChild({ stateDir, baseDir, env, ...(failpoint ? { failpoint } : {}) });
  live = k;
  const api = new ApiClient(k.url);
  await api.loginAs();
  return { k, api };
}

/** Every file below a folder with its bytes (a missing folder reads as null). */
function folder(dir: string): Record<string, string> | null {
  try {
    const out: Record<string, string> = {};
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (e.isFile()) out[join(e.parentPath, e.name).slice(dir.length + 1)] = readFileSync(join(e.parentPath, e.name), 'latin1');
    }
    return out;
  } catch {
    return null;
  }
}

/** The app as a user would compare it: its three files byte for byte and its data folder. */
const state = () => ({ files: readFiles(stackDir), data: folder(appData) });

/** Staging and moved-aside folders a restore leaves in LIBRARY_DIR and DATA_DIR. */
const leftovers = () => [...readdirSync(libraryDir), ...readdirSync(dataDir)].filter((n) => n.startsWith('.restore-') || n.startsWith('.aside-'));

/** The message the app's running web container was created with, and its state. */
async function running(api: ApiClient, name = APP, service = 'web'): Promise<{ message: string; state: string }> {
  const r = await api.get<{ containers: { id: string; service: string; state: string }[] }>(`/api/stacks/${name}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const c = r.body.containers.find((x) => x.service === service);
  assert.ok(c, `${name} has a ${service} container: ${JSON.stringify(r.body)}`);
  const env = JSON.parse(await docker(['inspect', '--format', '{{json .Config.Env}}', c.id])) as string[];
  return { message: env.find((e) => e.startsWith('MESSAGE='))?.slice(8) ?? '', state: c.state };
}

/** Changes the app after its backup: a new message (so `up` recreates the container) and new data. */
async function changeAfterBackup(api: ApiClient, message: string): Promise<void> {
  const j = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/reconfigure`, { values: { port: 18391, message } }));
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  writeFileSync(join(appData, 'data.txt'), `data of ${message}\n`);
  writeFileSync(join(appData, 'only-after.txt'), 'not in the backup\n');
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  proxy = await startSocketProxy(join(root, 'engine.sock'));
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  await git.addRepo('configure', 'test/fixtures/repos/configure', { branch: 'main' });
  const { k, api } = await start();
  const s = await api.put('/api/settings', { DISK_MIN_FREE_GB: 0 });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  await api.addSyncedRepo('basic', git.url('basic'));
  const install = await api.waitJob(
    await startJob(api, 'POST', '/api/store/install', { repo: 'basic', app: 'hello', name: APP, values: { port: 18391, message: 'backed-up' } }),
  );
  assert.equal(install.state, 'succeeded', install.log.join('\n'));
  mkdirSync(join(appData, 'sub'), { recursive: true });
  writeFileSync(join(appData, 'data.txt'), 'data of the backup\n');
  writeFileSync(join(appData, 'sub', 'kept.txt'), 'kept\n');
  const b = await api.waitJob(await startJob(api, 'POST', '/api/backups', { stack: APP }));
  assert.equal(b.state, 'succeeded', b.log.join('\n'));
  const list = await api.get<{ id: string }[]>(`/api/backups?stack=${APP}`);
  backupId = list.body[0]?.id ?? '';
  assert.ok(backupId, JSON.stringify(list.body));
  await changeAfterBackup(api, 'after-backup');
  await k.kill();
});

after(async () => {
  await live?.kill();
  await proxy?.close();
  await git?.close();
  if (mounted) await execFileP('umount', [small]).catch(() => execFileP('umount', ['-l', small]));
  await cleanupLabelled();
  rmSync(root, { recursive: true, force: true });
});

const STEPS = [
  { failpoint: 'restore.aside', when: 'after the old folders were moved aside' },
  { failpoint: 'restore.moved', when: 'after the backup’s folders were moved in' },
  { failpoint: 'restore.up', when: 'after the restored app was started' },
];
for (const step of STEPS) {
  test(`Kade killed during a restore ${step.when} (${step.failpoint}): the next start puts the old folder and data back and runs the old app`, async () => {
    const old = state();
    assert.equal(old.data?.['data.txt'], 'data of after-backup\n');
    const first = await start(step.failpoint);
    const id = await startJob(first.api, 'POST', `/api/backups/${backupId}/restore`);
    await diedAtFailpoint(first.k);
    assert.notDeepEqual(state(), old, 'the crash left the restore half done');

    const { k, api } = await start();
    const j = await api.waitJob(id, 180_000);
    assert.equal(j.state, 'interrupted', j.log.join('\n'));
    assert.equal(j.error, ROLLED_BACK, j.log.join('\n'));
    assert.equal(j.log.at(-1), `interrupted: ${ROLLED_BACK}`, 'the log closes with what the recovery did');
    assert.deepEqual(state(), old, 'compose file, .env, .svc.json and the data folder are the ones before the restore, byte for byte');
    assert.deepEqual(leftovers(), [], 'no staging or moved-aside folder is left');
    assert.deepEqual(await running(api), { message: 'after-backup', state: 'running' }, 'the app runs the state before the restore');
    await k.kill();
  });
}

test("the engine goes away during a restore's `up`: the job fails naming the engine, and the old folder, data and app are back once the engine returns", async () => {
  const p = proxy as SocketProxy;
  const old = state();
  const { k, api } = await start();
  const cutting = p.cutOn(new RegExp(`^POST \\S*/containers/create\\?name=\\S*${APP}[-_]web[-_]1`));
  const id = await startJob(api, 'POST', `/api/backups/${backupId}/restore`);
  await cutting;
  const j = await api.waitJob(id, 180_000);
  await p.restore();
  assert.equal(j.state, 'failed', j.log.join('\n'));
  assert.match(j.error ?? '', /container engine/, j.log.join('\n'));
  assert.equal(j.log.at(-1), `failed: ${j.error}`, 'the log closes with what went wrong');
  assert.ok(
    j.log.some((l) => l.startsWith('restore failed: ') && l.endsWith('; putting the previous state back')),
    j.log.join('\n'),
  );
  assert.deepEqual(state(), old, 'compose file, .env, .svc.json and the data folder are the ones before the restore, byte for byte');
  assert.deepEqual(leftovers(), [], 'no staging or moved-aside folder is left');

  const again = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/start`), 120_000);
  assert.equal(again.state, 'succeeded', again.log.join('\n'));
  assert.deepEqual(await running(api), { message: 'after-backup', state: 'running' }, 'the old app runs');
  await k.kill();
});

// PostgreSQL (the `configure` repo's board): Kade killed right after a restore loaded the dump, and the
// engine cut while the backup starts pg_dumpall (the archive then already holds the folder and the data).
const BOARD = 'kadetest-bf-board';
const boardDir = join(libraryDir, BOARD);

async function dbContainer(api: ApiClient): Promise<string> {
  const r = await api.get<{ containers: { id: string; service: string; state: string }[] }>(`/api/stacks/${BOARD}`);
  const c = r.body.containers.find((x) => x.service === 'db' && x.state === 'running');
  assert.ok(c, `${BOARD} has a running db: ${JSON.stringify(r.body.containers)}`);
  return c.id;
}

const psql = async (api: ApiClient, sql: string) => docker(['exec', await dbContainer(api), 'psql', '-U', 'board', '-d', 'board', '-tAc', sql]);
const fingerprint = (api: ApiClient) => psql(api, "SELECT count(*) || ':' || md5(string_agg(id || '=' || body, ',' ORDER BY id)) FROM notes");

/** Two answers in a row: the database is up. */
async function dbAnswers(api: ApiClient): Promise<void> {
  const deadline = Date.now() + 120_000;
  let ok = 0;
  while (ok < 2) {
    assert.ok(Date.now() < deadline, 'the database did not answer within 120 s');
    ok = (await psql(api, 'SELECT 1').then(
      () => true,
      () => false,
    ))
      ? ok + 1
      : 0;
    await sleep(500);
  }
}

let boardBackup: Promise<string> | undefined;
/** Board installed with 500 rows and backed up (once), then a row written after the backup; returns the backup's id. */
function boardBackedUp(api: ApiClient): Promise<string> {
  boardBackup ??= (async () => {
    await api.addSyncedRepo('configure', (git as GitServer).url('configure'));
    const install = await api.waitJob(
      await startJob(api, 'POST', '/api/store/install', { repo: 'configure', app: 'board', name: BOARD, values: { port: 18392, db_password: 'pg-pass-1' } }),
      180_000,
    );
    assert.equal(install.state, 'succeeded', install.log.join('\n'));
    await dbAnswers(api);
    await psql(api, "CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, 500) g");
    const b = await api.waitJob(await startJob(api, 'POST', '/api/backups', { stack: BOARD }), 180_000);
    assert.equal(b.state, 'succeeded', b.log.join('\n'));
    const id = (await api.get<{ id: string }[]>(`/api/backups?stack=${BOARD}`)).body[0]?.id ?? '';
    assert.ok(id);
    await psql(api, "INSERT INTO notes VALUES (9999, 'after the backup')");
    return id;
  })();
  return boardBackup;
}

test('Kade killed right after a restore loaded the PostgreSQL dump (restore.dump): the next start puts the old folder and database back', async () => {
  const { k, api } = await start(undefined, true);
  const id = await boardBackedUp(api);
  const oldPrint = await fingerprint(api);
  assert.match(oldPrint, /^501:/);
  const oldFiles = readFiles(boardDir);
  await k.kill();

  const first = await start('restore.dump', true);
  const job = await startJob(first.api, 'POST', `/api/backups/${id}/restore`);
  await diedAtFailpoint(first.k, 120_000);
  const next = await start(undefined, true);
  const j = await next.api.waitJob(job, 180_000);
  assert.equal(j.state, 'interrupted', j.log.join('\n'));
  assert.equal(j.error, ROLLED_BACK, j.log.join('\n'));
  assert.ok(j.log.includes("loading the dump of 'db' once the database answers"), `the crash came after the dump was loaded: ${j.log.join('\n')}`);
  assert.deepEqual(readFiles(boardDir), oldFiles, 'compose file, .env and .svc.json are the ones before the restore, byte for byte');
  assert.deepEqual(leftovers(), [], 'no staging or moved-aside folder is left');
  await dbAnswers(next.api);
  assert.equal(await fingerprint(next.api), oldPrint, 'the database is the one before the restore, with the row written after the backup');
  await next.k.kill();
});

test('the engine goes away when the backup starts pg_dumpall: the job fails naming the engine and no partial archive is left', async () => {
  const p = proxy as SocketProxy;
  const { k, api } = await start();
  await boardBackedUp(api);
  const oldPrint = await fingerprint(api);
  const listing = readdirSync(backupDir).sort();
  const cutting = p.cutOn(/^POST \S*\/exec\/[0-9a-f]+\/start/);
  const id = await startJob(api, 'POST', '/api/backups', { stack: BOARD });
  await cutting;
  const j = await api.waitJob(id, 180_000);
  await p.restore();
  assert.equal(j.state, 'failed', j.log.join('\n'));
  assert.match(j.error ?? '', /container engine/, j.log.join('\n'));
  assert.equal(j.log.at(-1), `failed: ${j.error}`, 'the log closes with what went wrong');
  assert.deepEqual(readdirSync(backupDir).sort(), listing, 'no partial archive, no temp file, no metadata file');
  assert.equal((await api.get<unknown[]>(`/api/backups?stack=${BOARD}`)).body.length, 1, 'the list holds only the earlier backup');
  assert.equal(await fingerprint(api), oldPrint, 'the database runs on, untouched');
  const del = await api.waitJob(await startJob(api, 'DELETE', `/api/stacks/${BOARD}`), 180_000);
  assert.equal(del.state, 'succeeded', del.log.join('\n'));
  await k.kill();
});

// A full disk while the archive is written: BACKUP_DIR on a small tmpfs (a setting applied at the next
// start) with exactly the space the estimate asks for (the app's folder and data, in bytes), and data that
// does not compress (random bytes), so the estimate passes and the archive, a little bigger, does not fit.

const freeIn = (dir: string) => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};
/** Bytes of the files below a folder, as the estimate counts them. */
const bytesIn = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + lstatSync(join(e.parentPath, e.name)).size, 0);

test('a full disk while the archive is written: the job fails saying the disk is full, nothing is left in BACKUP_DIR, the app runs', {
  skip: SKIP,
}, async () => {
  mkdirSync(small);
  await execFileP('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0755', 'tmpfs', small]);
  mounted = true;
  const target = join(small, 'backups');
  mkdirSync(target);
  const first = await start();
  const s = await first.api.put('/api/settings', { BACKUP_DIR: target, DISK_MIN_FREE_GB: 0 });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  await first.k.kill();
  const { k, api } = await start();

  writeFileSync(join(appData, 'random.bin'), randomBytes(1 << 20));
  const needed = bytesIn(stackDir) + bytesIn(appData);
  writeFileSync(join(appData, 'random.bin'), randomBytes((1 << 20) + ((PAGE - (needed % PAGE)) % PAGE)));
  const exact = bytesIn(stackDir) + bytesIn(appData);
  assert.equal(exact % PAGE, 0);
  writeFileSync(join(small, 'filler'), Buffer.alloc(freeIn(small) - exact));
  assert.equal(freeIn(small), exact, 'exactly the space the estimate asks for is free');

  const id = await startJob(api, 'POST', '/api/backups', { stack: APP });
  const j = await api.waitJob(id, 120_000);
  assert.equal(j.state, 'failed', j.log.join('\n'));
  assert.match(j.error ?? '', new RegExp(`^disk full: there is no space left to write ${target}/${APP}-\\d{8}-\\d{6}(-\\d+)?\\.tar\\.gz$`), j.log.join('\n'));
  assert.deepEqual(readdirSync(target), [], 'no partial archive, temp file or metadata file is left');
  assert.equal(freeIn(small), exact, 'the space the partial archive took is given back');
  assert.deepEqual((await api.get<unknown[]>(`/api/backups?stack=${APP}`)).body, [], 'no backup is listed from the full disk');
  assert.deepEqual(await running(api), { message: 'after-backup', state: 'running' }, 'the app runs on');
  await k.kill();
});
