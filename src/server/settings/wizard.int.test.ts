import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ApiClient } from '../../../test/helpers/client.ts';
import { type GitServer, startGitServer } from '../../../test/helpers/git-server.ts';
import { startTestServer, type TestServer } from '../../../test/helpers/server.ts';

let git: GitServer;
let server: TestServer;
let admin: ApiClient;
let root: string;

before(async () => {
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  root = mkdtempSync(join(tmpdir(), 'kade-wizard-'));
  server = await startTestServer({ stateDir: join(root, 'state'), baseDir: join(root, 'base') });
  admin = new ApiClient(server.url);
  await admin.loginAs();
});
after(async () => {
  await server.close();
  await git.close();
  rmSync(root, { recursive: true, force: true });
});

const restart = async (env: Record<string, string> = {}) => {
  await server.close();
  server = await startTestServer({ stateDir: join(root, 'state'), baseDir: join(root, 'base'), env });
  admin = new ApiClient(server.url);
  await admin.loginAs();
};

test('the wizard end to end: paths → template repo → sync → done; reset clears it', async () => {
  assert.deepEqual((await admin.get('/api/wizard')).body, { done: false, repos: 0 });
  assert.equal((await admin.get('/api/settings')).body.WIZARD_DONE, false);

  // Paths: the same checks as the settings; the derived folders follow the new BASE_DIR.
  const refused = await admin.post('/api/wizard/paths', { BASE_DIR: '/etc/kade' });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, 'path_unreachable');
  assert.equal(refused.body.params.fix, 'BASE_DIR=/opt/kade-data');
  const base = join(server.baseDir, 'kade');
  const paths = await admin.post('/api/wizard/paths', { BASE_DIR: base });
  assert.equal(paths.status, 200, JSON.stringify(paths.body));
  assert.equal(paths.body.LIBRARY_DIR, join(base, 'stacks'));
  assert.equal(paths.body.BACKUP_DIR, join(base, 'backups'));
  assert.ok(existsSync(join(base, 'appdata')));

  // The template repo, over HTTP from a real git server; its first sync starts at once.
  const added = await admin.post('/api/wizard/git', { url: git.url('basic'), branch: 'main', subdirectory: 'apps' });
  assert.equal(added.status, 202, JSON.stringify(added.body));
  assert.equal(added.body.repo.name, 'basic');
  assert.equal(added.body.repo.has_token, false);
  assert.equal((await admin.waitJob(added.body.job.id)).state, 'succeeded');

  const synced = await admin.post('/api/wizard/sync');
  assert.equal(synced.status, 202);
  assert.equal(synced.body.jobs.length, 1);
  const job = await admin.waitJob(synced.body.jobs[0].id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  assert.ok(
    job.log.some((l) => /2 apps/.test(l)),
    job.log.join('\n'),
  );
  const apps = (await admin.get('/api/store/apps')).body.map((a: { app: string }) => a.app).sort();
  assert.deepEqual(apps, ['hello', 'notes']);

  const done = await admin.post('/api/wizard/complete');
  assert.deepEqual(done.body, { done: true, repos: 1 });
  assert.equal((await admin.get('/api/settings')).body.WIZARD_DONE, true);

  const reset = await admin.post('/api/wizard/reset');
  assert.deepEqual(reset.body, { done: false, repos: 1 });
  assert.equal((await admin.get('/api/settings')).body.WIZARD_DONE, false);
  assert.equal((await admin.get('/api/wizard')).body.done, false);
  await admin.post('/api/wizard/complete');

  const audit = await admin.get('/api/audit');
  assert.equal(audit.status, 200);
  const text = JSON.stringify(audit.body);
  for (const action of ['wizard_complete', 'wizard_reset']) assert.ok(text.includes(action), `audit lacks ${action}`);
});

test('the wizard refuses a bad repo address and input it does not know', async () => {
  const bad = await admin.post('/api/wizard/git', { url: 'file:///etc' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'invalid_git_url');
  assert.equal((await admin.post('/api/wizard/paths', { BASE_DIR: server.baseDir, EXTRA: 1 })).status, 400);
  assert.equal((await admin.post('/api/wizard/paths', {})).status, 400);
});

test('WIZARD_DONE survives a restart', async () => {
  await restart();
  assert.equal((await admin.get('/api/wizard')).body.done, true);
});

test('AUTO_SYNC_ON_BOOT: the stored setting wins over the environment, which is only the default', async () => {
  const syncJobs = async () => (await admin.get('/api/jobs')).body.filter((j: { kind: string }) => j.kind === 'repo.sync').length;

  await restart({ AUTO_SYNC_ON_BOOT: '1' });
  assert.equal((await admin.get('/api/settings')).body.AUTO_SYNC_ON_BOOT, true, 'the environment is the default');
  let before = await syncJobs();
  assert.equal((await admin.put('/api/settings', { AUTO_SYNC_ON_BOOT: false })).status, 200);
  await restart({ AUTO_SYNC_ON_BOOT: '1' });
  assert.equal(await syncJobs(), before, 'stored off wins over AUTO_SYNC_ON_BOOT=1');

  assert.equal((await admin.put('/api/settings', { AUTO_SYNC_ON_BOOT: true })).status, 200);
  before = await syncJobs();
  await restart();
  assert.equal(await syncJobs(), before + 1, 'stored on syncs at start without the variable');
});
