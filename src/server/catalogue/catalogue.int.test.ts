import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type KadeWithGit, startKadeWithGit } from '../../../test/helpers/basic-kade.ts';
import type { ApiClient } from '../../../test/helpers/client.ts';
import { type GitServer, startGitServer } from '../../../test/helpers/git-server.ts';

let kade: KadeWithGit;
let git: GitServer;
let locked: GitServer;
let api: ApiClient;
const TOKEN = 'repo-Token-987';

before(async () => {
  locked = await startGitServer({ token: TOKEN });
  await locked.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  kade = await startKadeWithGit({ basic: 'test/fixtures/repos/basic' });
  ({ git, api } = kade);
});
after(async () => {
  await kade.close();
  await locked.close();
});

test('the same repo, branch and folder twice is refused naming the first; another of the same name gets a numeric suffix; ids stay put on edit', async () => {
  const a = await api.addRepo({ name: 'Basic', url: git.url('basic'), subdirectory: 'apps' });
  const twice = await api.post('/api/repos', { name: 'Again', url: `${git.url('basic').replace(/\.git$/, '')}/`, branch: 'main', subdirectory: 'apps' });
  assert.equal(twice.status, 409, JSON.stringify(twice.body));
  assert.equal(twice.body.code, 'repo_exists');
  assert.deepEqual([twice.body.params.id, twice.body.params.name, twice.body.fields], ['basic', 'Basic', ['url']]);
  const b = await api.addRepo({ name: 'Basic', url: git.url('basic'), subdirectory: '' });
  assert.equal(a.repo.id, 'basic');
  assert.equal(b.repo.id, 'basic-2');
  assert.equal(a.job.state, 'succeeded');
  const same = await api.put('/api/repos/basic-2', { name: 'Renamed', branch: 'main', subdirectory: 'apps' });
  assert.equal(same.status, 409, 'an edit into a twin of another repo is refused too');
  assert.equal(same.body.code, 'repo_exists');
  const edit = await api.put('/api/repos/basic-2', { name: 'Renamed', branch: 'main', subdirectory: '' });
  assert.equal(edit.status, 202);
  assert.equal(edit.body.repo.id, 'basic-2');
  assert.equal(edit.body.repo.name, 'Renamed');
  assert.equal((await api.waitJob(edit.body.job.id)).state, 'succeeded', 'saving fetches again at once');
  const del = await api.del('/api/repos/basic-2');
  assert.equal(del.status, 204);
  assert.equal((await api.del('/api/repos/basic-2')).status, 404);
  assert.deepEqual(
    (await api.get('/api/repos')).body.map((r: { id: string }) => r.id),
    ['basic'],
  );
});

test('the token is write-only; an empty token keeps the stored one', async () => {
  const { repo, job } = await api.addRepo({ name: 'Private', url: locked.url('basic'), subdirectory: 'apps', token: TOKEN });
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  assert.equal(repo.has_token, true);
  const listText = JSON.stringify((await api.get('/api/repos')).body);
  assert.ok(!listText.includes(TOKEN));
  const edit = await api.put(`/api/repos/${repo.id}`, { name: 'Private', branch: 'main', subdirectory: 'apps', token: '' });
  const j = await api.waitJob(edit.body.job.id);
  assert.equal(j.state, 'succeeded', 'the stored token still works');
  assert.ok(!j.log.join('\n').includes(TOKEN));
  const wrong = await api.put(`/api/repos/${repo.id}`, { name: 'Private', branch: 'main', subdirectory: 'apps', token: 'wrong-Token-000' });
  const wj = await api.waitJob(wrong.body.job.id);
  assert.equal(wj.state, 'failed');
  assert.ok(!wj.log.join('\n').includes('wrong-Token-000'), 'a token never reaches a job log');
});

test('the cache follows new commits and reports the VERSION read from it', async () => {
  const tree = mkdtempSync(join(tmpdir(), 'kade-tree-'));
  cpSync('test/fixtures/repos/basic', tree, { recursive: true });
  writeFileSync(join(tree, 'VERSION'), 'v0.0.90\n');
  rmSync(join(tree, 'apps/notes'), { recursive: true });
  const sha = await git.commit('basic', tree, 'older version, one app');
  const sync = await api.post('/api/repos/basic/sync');
  assert.equal((await api.waitJob(sync.body.job.id)).state, 'succeeded');
  const repo = (await api.get('/api/repos')).body.find((r: { id: string }) => r.id === 'basic');
  assert.equal(repo.status.commit, sha);
  assert.equal(repo.status.version, 'v0.0.90');
  assert.equal(repo.outdated, true, 'v0.0.90 is older than the running version');
  const apps = (await api.get('/api/store/apps')).body.filter((a: { repo: string }) => a.repo === 'basic');
  assert.deepEqual(
    apps.map((a: { app: string }) => a.app),
    ['hello'],
  );
  rmSync(tree, { recursive: true, force: true });
});

test('a broken cache is discarded and fetched again; a failing remote is reported', async () => {
  const cache = join(kade.server.stateDir, 'cache', 'basic');
  rmSync(join(cache, '.git', 'objects'), { recursive: true, force: true });
  const sync = await api.post('/api/repos/basic/sync');
  const job = await api.waitJob(sync.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  assert.ok(job.log.some((l) => l.includes('discarding the cache')));
  assert.ok(existsSync(join(cache, 'apps', 'hello', 'template.json')));

  const bad = await api.addRepo({ name: 'Gone', url: git.url('does-not-exist') });
  assert.equal(bad.job.state, 'failed');
  const gone = (await api.get('/api/repos')).body.find((r: { id: string }) => r.id === 'gone');
  assert.match(gone.status.error, /git fetch failed/);
});

test('one git operation per repo cache at a time: parallel syncs all succeed', async () => {
  const jobs = await Promise.all([1, 2, 3].map(() => api.post('/api/repos/basic/sync')));
  const done = await Promise.all(jobs.map((j) => api.waitJob(j.body.job.id)));
  assert.deepEqual(
    done.map((d) => d.state),
    ['succeeded', 'succeeded', 'succeeded'],
  );
});
