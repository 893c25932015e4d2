import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type KadeWithGit, startKadeWithGit } from '../../../test/helpers/basic-kade.ts';
import type { ApiClient } from '../../../test/helpers/client.ts';
import type { GitServer } from '../../../test/helpers/git-server.ts';

// Repo ids, the subdirectory on edit, and templates that fail validation: over the real API and real git.
let kade: KadeWithGit;
let git: GitServer;
let api: ApiClient;

before(async () => {
  kade = await startKadeWithGit({ basic: 'test/fixtures/repos/basic', broken: 'test/fixtures/repos/broken' });
  ({ git, api } = kade);
});
after(async () => {
  await kade.close();
});

async function added(body: Record<string, string>) {
  const { repo, job } = await api.addRepo<{ id: string; subdirectory: string; branch: string }>(body);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  return repo;
}

test('a chosen repo id that is not a safe name is refused with 400 naming the rule, never rewritten', async () => {
  for (const id of ['My Repo', 'UPPER', '-lead', '../x', 'a'.repeat(64), 'dot.ted', '']) {
    const r = await api.post('/api/repos', { id, name: 'Anything', url: git.url('basic'), subdirectory: 'apps' });
    assert.equal(r.status, 400, `${JSON.stringify(id)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, 'invalid_name');
    assert.deepEqual(r.body.fields, ['id']);
    assert.match(r.body.detail, /lower-case letters, digits, _ and -/);
  }
  assert.deepEqual((await api.get('/api/repos')).body, [], 'nothing was stored');
});

test('a chosen safe id is used as given; taken, it is a 409; without an id it is derived from the name', async () => {
  const chosen = await added({ id: 'my_templates', name: 'Something Else', url: git.url('basic'), subdirectory: 'apps' });
  assert.equal(chosen.id, 'my_templates');
  const again = await api.post('/api/repos', { id: 'my_templates', name: 'Other', url: git.url('basic') });
  assert.equal(again.status, 409);
  assert.equal(again.body.code, 'name_taken');
  const derived = await added({ name: 'Family Apps!', url: git.url('basic'), subdirectory: '' });
  assert.equal(derived.id, 'family-apps');
  await api.del('/api/repos/my_templates');
  await api.del('/api/repos/family-apps');
});

test('repo and app parameters in the path that are not safe names answer 400, not 404', async () => {
  const bad = ['UPPER', 'a%20b', '-x', '.hidden', 'a..b', 'a.b', `${'x'.repeat(70)}`];
  for (const id of bad) {
    for (const [method, path] of [
      ['PUT', `/api/repos/${id}`],
      ['DELETE', `/api/repos/${id}`],
      ['POST', `/api/repos/${id}/sync`],
      ['GET', `/api/store/apps/${id}/hello`],
      ['GET', `/api/store/apps/basic/${id}`],
    ] as const) {
      const r = await api.call(method, path, method === 'PUT' ? { name: 'x' } : undefined);
      assert.equal(r.status, 400, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    }
  }
  // A safe name that does not exist is still a 404.
  assert.equal((await api.post('/api/repos/nope/sync')).status, 404);
});

test('editing a repo without subdirectory (or branch) keeps the stored one; an empty subdirectory means the root', async () => {
  const repo = await added({ id: 'subdir', name: 'Sub', url: git.url('basic'), subdirectory: 'apps' });
  const edit = await api.put('/api/repos/subdir', { name: 'Sub renamed' });
  assert.equal(edit.status, 202, JSON.stringify(edit.body));
  assert.equal(edit.body.repo.subdirectory, 'apps');
  assert.equal(edit.body.repo.branch, repo.branch);
  assert.equal((await api.waitJob(edit.body.job.id)).state, 'succeeded');
  const apps = (await api.get('/api/store/apps')).body.filter((a: { repo: string }) => a.repo === 'subdir');
  assert.deepEqual(apps.map((a: { app: string }) => a.app).sort(), ['hello', 'notes'], 'the store still reads the apps folder');

  const root = await api.put('/api/repos/subdir', { name: 'Sub', subdirectory: '' });
  assert.equal(root.body.repo.subdirectory, '');
  await api.waitJob(root.body.job.id);
  await api.del('/api/repos/subdir');
});

test('templates that fail validation are listed per repo with their reason; the good ones reach the store', async () => {
  await added({ id: 'broken', name: 'Broken', url: git.url('broken'), subdirectory: 'apps' });
  const repo = (await api.get('/api/repos')).body.find((r: { id: string }) => r.id === 'broken');
  const reasons = Object.fromEntries(repo.skipped.map((s: { app: string; reason: string }) => [s.app, s.reason]));
  assert.deepEqual(Object.keys(reasons).sort(), ['Upper_Case', 'badjson', 'badtype', 'badyaml', 'nolabel']);
  assert.match(reasons.nolabel, /fields\.1\.label/);
  assert.match(reasons.badjson, /not valid JSON/);
  assert.match(reasons.badtype, /fields\.1\.type/);
  assert.match(reasons.badyaml, /not valid YAML/);
  assert.match(reasons.Upper_Case, /not a safe app id/);
  for (const r of Object.values(reasons)) assert.ok(!String(r).includes('\n') && !String(r).includes('__kade_'), String(r));
  const apps = (await api.get('/api/store/apps')).body.filter((a: { repo: string }) => a.repo === 'broken');
  assert.deepEqual(
    apps.map((a: { app: string }) => a.app),
    ['hello'],
    'a folder without template (notes-docs) is not an app and not listed as skipped',
  );
  await api.del('/api/repos/broken');
});
