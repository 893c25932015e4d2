import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// The path move (issue #14 item 6): apps stopped, folders copied and verified, paths rewritten, apps
// started from the new folders, the new folders saved, the old ones removed, Kade working in the new ones.
const execFileP = promisify(execFile);
const A = 'kadetest-move-a';
const B = 'kadetest-move-b';
const suite = useEngineSuite();
const base = () => suite.kade.baseDir;
const old = () => ({ LIBRARY_DIR: join(base(), 'stacks'), DATA_DIR: join(base(), 'appdata'), BACKUP_DIR: join(base(), 'backups') });
const fresh = () => ({ LIBRARY_DIR: join(base(), 'big', 'stacks'), DATA_DIR: join(base(), 'big', 'appdata'), BACKUP_DIR: join(base(), 'big', 'backups') });
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 60_000 })).stdout.trim();

async function until<T>(fn: () => Promise<T | null> | T | null, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== null && v !== false) return v;
    await sleep(250);
  }
  assert.fail(`${what} did not happen within ${timeoutMs} ms`);
}

async function job(r: { status: number; body: { job?: { id: string } } }, expect = 'succeeded') {
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const j = await suite.api.waitJob((r.body.job as { id: string }).id, 180_000);
  assert.equal(j.state, expect, j.log.join('\n'));
  return j;
}

/** Where the container of an app binds its `/data` from, and whether it runs. */
async function container(name: string): Promise<{ source: string; running: boolean } | null> {
  const id = await docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${name}`]);
  if (!id) return null;
  const info = JSON.parse(await docker(['inspect', id.split('\n')[0] as string]))[0];
  const data = info.Mounts.find((m: { Destination: string }) => m.Destination === '/data');
  return { source: data?.Source ?? '', running: info.State.Running === true };
}

let backupId = '';

test('set-up: app A runs with extra files (owner, link), app B is stopped, one backup exists', async () => {
  await suite.git.addRepo('appdata', 'test/fixtures/repos/appdata', { branch: 'main' });
  await suite.api.addSyncedRepo('appdata', suite.git.url('appdata'));
  await job(await suite.api.post('/api/store/install', { repo: 'appdata', app: 'keeper', name: A, values: { message: 'from A' } }));
  await job(await suite.api.post('/api/store/install', { repo: 'appdata', app: 'keeper', name: B, values: { message: 'from B' } }));
  await job(await suite.api.post(`/api/stacks/${B}/stop`));
  const files = join(old().DATA_DIR, A, 'files');
  await until(() => existsSync(join(files, 'owner.txt')), 'A wrote its file');
  mkdirSync(join(files, 'deep', 'er'), { recursive: true });
  writeFileSync(join(files, 'deep', 'er', 'owned.bin'), Buffer.alloc(300_000, 7), { mode: 0o640 });
  chownSync(join(files, 'deep', 'er', 'owned.bin'), 1234, 4321);
  symlinkSync('deep/er/owned.bin', join(files, 'link'));
  await job(await suite.api.post('/api/backups', { stack: B }));
  const list = await suite.api.get<{ id: string }[]>(`/api/backups?stack=${B}`);
  backupId = list.body[0]?.id ?? '';
  assert.notEqual(backupId, '', JSON.stringify(list.body));
});

test('refused before anything is touched: not an admin, a folder inside another, a folder that is not empty', async () => {
  const viewer = new ApiClient(suite.kade.url);
  assert.equal((await suite.api.post('/api/users', { name: 'mover', password: 'correct-horse-battery', role: 'operator' })).status, 201);
  await viewer.loginAs('mover', 'correct-horse-battery');
  assert.equal((await viewer.post('/api/paths/move', fresh())).status, 403);

  const inside = await suite.api.post('/api/paths/move', { DATA_DIR: join(old().LIBRARY_DIR, 'data') });
  assert.equal(inside.status, 400, JSON.stringify(inside.body));
  assert.deepEqual(inside.body.fields, ['DATA_DIR']);

  const full = join(base(), 'full');
  mkdirSync(full);
  writeFileSync(join(full, 'somebody.txt'), 'hi');
  const notEmpty = await suite.api.post('/api/paths/move', { DATA_DIR: full });
  assert.equal(notEmpty.status, 409, JSON.stringify(notEmpty.body));
  assert.match(notEmpty.body.detail, /not empty/);

  const same = await suite.api.post('/api/paths/move', { DATA_DIR: old().DATA_DIR });
  assert.equal(same.status, 400, JSON.stringify(same.body));
  assert.match(same.body.detail, /nothing to move/);
  assert.deepEqual((await container(A))?.running, true, 'A still runs');
  assert.equal(existsSync(fresh().DATA_DIR), false);
});

test('the move: copied with owners and links, paths rewritten, A runs from the new folder, B stays stopped, the old folders are gone, Kade works in the new ones', async () => {
  const before = readFileSync(join(old().LIBRARY_DIR, A, 'docker-compose.yml'), 'utf8');
  assert.ok(before.includes(`${old().DATA_DIR}/${A}/files:/data`), before);
  const j = await job(await suite.api.post('/api/paths/move', fresh()));
  assert.ok(
    j.log.some((l) => l.startsWith(`${A}: paths rewritten in`)),
    j.log.join('\n'),
  );

  // Kade restarted in place: the same session, the new folders in use.
  const s = await until(async () => {
    const r = await suite.api.get('/api/settings');
    return r.status === 200 && r.body.paths_in_use.DATA_DIR === fresh().DATA_DIR ? r.body : null;
  }, 'Kade works in the new folders');
  assert.equal(s.LIBRARY_DIR, fresh().LIBRARY_DIR);
  assert.deepEqual(s.paths_in_use, { BASE_DIR: base(), ...fresh() });

  for (const dir of Object.values(old())) assert.equal(existsSync(dir), false, `${dir} is removed`);
  const compose = readFileSync(join(fresh().LIBRARY_DIR, A, 'docker-compose.yml'), 'utf8');
  assert.ok(compose.includes(`${fresh().DATA_DIR}/${A}/files:/data`), compose);
  assert.ok(!compose.includes(old().DATA_DIR), compose);
  const meta = JSON.parse(readFileSync(join(fresh().LIBRARY_DIR, A, '.svc.json'), 'utf8'));
  assert.equal(meta.values.appdata_dir, join(fresh().DATA_DIR, A));
  assert.equal(statSync(join(fresh().LIBRARY_DIR, A, '.env')).mode & 0o777, 0o600, '.env stays private');

  const files = join(fresh().DATA_DIR, A, 'files');
  const owned = lstatSync(join(files, 'deep', 'er', 'owned.bin'));
  assert.deepEqual([owned.uid, owned.gid, owned.mode & 0o777, owned.size], [1234, 4321, 0o640, 300_000]);
  assert.equal(readlinkSync(join(files, 'link')), 'deep/er/owned.bin');
  assert.deepEqual(await container(A), { source: files, running: true }, 'A runs with its data from the new folder');
  assert.equal(await container(B), null, 'B was stopped and stays so (its containers are made at its next start)');

  const apps = await suite.api.get<{ name: string }[]>('/api/stacks');
  assert.deepEqual(
    apps.body
      .map((a) => a.name)
      .filter((n) => n.startsWith('kadetest-move'))
      .sort(),
    [A, B],
  );
  const backups = await suite.api.get<{ id: string }[]>(`/api/backups?stack=${B}`);
  assert.deepEqual(
    backups.body.map((b) => b.id),
    [backupId],
  );
  assert.equal(
    readdirSync(fresh().BACKUP_DIR).some((f) => f.startsWith(B)),
    true,
  );
  await job(await suite.api.post(`/api/backups/${backupId}/verify`));

  // B starts from the new folder too.
  await job(await suite.api.post(`/api/stacks/${B}/start`));
  assert.deepEqual(await container(B), { source: join(fresh().DATA_DIR, B, 'files'), running: true });
  assert.equal(readFileSync(join(fresh().DATA_DIR, B, 'files', 'owner.txt'), 'utf8'), 'from B\n');
});
