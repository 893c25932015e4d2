import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { diedAtFailpoint, type KadeChild, startKadeChild } from '../helpers/kade-child.ts';
import { docker, readFiles, startJob } from './plain-app.ts';

// Kade killed during a path move (issue #14 item 6): after the copy, after the app started from the new
// folder, and after the new folders were saved. Before the save, the next start puts everything back
// (apps running from the old folders, files byte for byte, the copy removed); after it, the move is
// finished (the old folders removed). The app writes into its data folder, so which folder it runs
// from can be read off its container.
const APP = 'kadetest-pm-keeper';
const root = mkdtempSync(join(tmpdir(), 'kade-pm-'));
const stateDir = join(root, 'state');
const baseDir = join(root, 'base');
const oldData = join(baseDir, 'appdata');
const oldStacks = join(baseDir, 'stacks');
let git: GitServer | undefined;
let live: KadeChild | undefined;

async function start(failpoint?: string): Promise<{ k: KadeChild; api: ApiClient }> {
  const k = await startKadeChild({ stateDir, baseDir, ...(failpoint ? { failpoint } : {}) });
  live = k;
  const api = new ApiClient(k.url);
  await api.loginAs();
  return { k, api };
}

/** Where the app's container binds `/data` from, and whether it runs. */
async function running(): Promise<{ source: string; running: boolean } | null> {
  const id = await docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${APP}`]);
  if (!id) return null;
  const info = JSON.parse(await docker(['inspect', id.split('\n')[0] as string]))[0];
  const data = info.Mounts.find((m: { Destination: string }) => m.Destination === '/data');
  return { source: data?.Source ?? '', running: info.State.Running === true };
}

async function inUse(api: ApiClient): Promise<Record<string, string>> {
  const s = await api.get('/api/settings');
  assert.equal(s.status, 200, JSON.stringify(s.body));
  return s.body.paths_in_use;
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  git = await startGitServer();
  await git.addRepo('appdata', 'test/fixtures/repos/appdata', { branch: 'main' });
  const { k, api } = await start();
  await api.addSyncedRepo('appdata', git.url('appdata'));
  const install = await api.waitJob(
    await startJob(api, 'POST', '/api/store/install', { repo: 'appdata', app: 'keeper', name: APP, values: { message: 'kept' } }),
  );
  assert.equal(install.state, 'succeeded', install.log.join('\n'));
  await k.kill();
});

after(async () => {
  await live?.kill();
  await git?.close();
  await cleanupLabelled();
  rmSync(root, { recursive: true, force: true });
});

const cases = [
  { point: 'paths.copied', body: () => ({ LIBRARY_DIR: join(baseDir, 'm1', 'stacks'), DATA_DIR: join(baseDir, 'm1', 'appdata') }) },
  { point: 'paths.started', body: () => ({ LIBRARY_DIR: join(baseDir, 'm2', 'stacks'), DATA_DIR: join(baseDir, 'm2', 'appdata') }) },
  // Only DATA_DIR moves: the app's files are rewritten in place, so the rollback puts them back from the snapshot.
  { point: 'paths.started', body: () => ({ DATA_DIR: join(baseDir, 'm3', 'appdata') }) },
];

for (const c of cases) {
  test(`Kade killed at ${c.point} moving ${Object.keys(c.body()).join(' and ')}: the next start puts everything back where it was, running`, async () => {
    const before = readFiles(join(oldStacks, APP));
    const data = readFileSync(join(oldData, APP, 'files', 'owner.txt'), 'utf8');
    assert.deepEqual(await running(), { source: join(oldData, APP, 'files'), running: true });

    const first = await start(c.point);
    const id = await startJob(first.api, 'POST', '/api/paths/move', c.body());
    await diedAtFailpoint(first.k, 120_000);
    const next = await start();
    const j = await next.api.waitJob(id, 180_000);
    assert.equal(j.state, 'interrupted', j.log.join('\n'));
    assert.equal(j.error, 'rolled back: the apps run from the old folders, the copy is removed', j.log.join('\n'));
    assert.deepEqual(readFiles(join(oldStacks, APP)), before, 'compose file, .env and .svc.json are the ones before, byte for byte');
    assert.equal(readFileSync(join(oldData, APP, 'files', 'owner.txt'), 'utf8'), data);
    for (const dir of Object.values(c.body())) assert.deepEqual(existsSync(dir) ? readdirSync(dir) : [], [], `${dir} holds nothing`);
    assert.deepEqual(await running(), { source: join(oldData, APP, 'files'), running: true }, 'the app runs from the old folder');
    assert.deepEqual(await inUse(next.api), { BASE_DIR: baseDir, LIBRARY_DIR: oldStacks, DATA_DIR: oldData, BACKUP_DIR: join(baseDir, 'backups') });
    const restart = await next.api.waitJob(await startJob(next.api, 'POST', `/api/stacks/${APP}/restart`));
    assert.equal(restart.state, 'succeeded', `no job holds the apps any more: ${restart.log.join('\n')}`);
    await next.k.kill();
  });
}

test('Kade killed right after the new folders were saved: the next start finishes the move (the old folders go)', async () => {
  const target = { LIBRARY_DIR: join(baseDir, 'm4', 'stacks'), DATA_DIR: join(baseDir, 'm4', 'appdata') };
  const before = readFiles(join(oldStacks, APP));
  const first = await start('paths.switched');
  const id = await startJob(first.api, 'POST', '/api/paths/move', target);
  await diedAtFailpoint(first.k, 120_000);
  const next = await start();
  const j = await next.api.waitJob(id, 60_000);
  assert.equal(j.state, 'interrupted', j.log.join('\n'));
  assert.equal(j.error, 'the move was complete; the old folders are removed', j.log.join('\n'));
  assert.equal(existsSync(oldStacks), false);
  assert.equal(existsSync(oldData), false);
  assert.deepEqual(await inUse(next.api), { BASE_DIR: baseDir, ...target, BACKUP_DIR: join(baseDir, 'backups') });
  const now = readFiles(join(target.LIBRARY_DIR, APP));
  assert.notEqual(now[0], before[0]);
  assert.ok(now[0]?.includes(`${target.DATA_DIR}/${APP}/files:/data`), now[0] ?? '');
  // Give the engine a moment: the container was made before the kill.
  for (let i = 0; i < 20 && !(await running())?.running; i++) await sleep(250);
  assert.deepEqual(await running(), { source: join(target.DATA_DIR, APP, 'files'), running: true });
  const apps = await next.api.get<{ name: string }[]>('/api/stacks');
  assert.ok(
    apps.body.some((a) => a.name === APP),
    JSON.stringify(apps.body),
  );
  await next.k.kill();
});
