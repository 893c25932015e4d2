import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type KadeWithGit, startKadeWithGit } from '../../../../test/helpers/basic-kade.ts';
import type { ApiClient } from '../../../../test/helpers/client.ts';
import type { GitServer } from '../../../../test/helpers/git-server.ts';

// A Portainer templates repo added to Kade over real git: the stack files come from Kade's own checkout, whose
// origin is the repo's URL, so a stack whose repository.url names this repo is imported and another is refused.
let kade: KadeWithGit;
let git: GitServer;
let api: ApiClient;
let work: string;

before(async () => {
  kade = await startKadeWithGit({});
  ({ git, api } = kade);
  work = mkdtempSync(join(tmpdir(), 'kade-pt-int-'));
  cpSync(join(import.meta.dirname, '../../../../test/fixtures/import/portainer'), work, { recursive: true });
  const file = join(work, 'templates.json');
  const text = readFileSync(file, 'utf8').replaceAll('https://github.com/example/kade-portainer-fixture', git.url('portainer-store'));
  writeFileSync(file, text);
  await git.addRepo('portainer-store', work, { branch: 'main' });
});
after(async () => {
  await kade.close();
  rmSync(work, { recursive: true, force: true });
});

test('a Portainer repo: its apps in the store, the report with every refusal and its reason', async () => {
  const { repo: added, job } = await api.addRepo<{ id: string }>({ name: 'Portainer store', url: git.url('portainer-store'), subdirectory: '' });
  assert.equal(job.state, 'succeeded', job.log.join('\n'));

  const repo = (await api.get('/api/repos')).body.find((x: { id: string }) => x.id === added.id);
  assert.equal(repo.import.format, 'portainer');
  assert.equal(repo.import.found, 10);
  assert.equal(repo.import.imported, 7);
  assert.equal(repo.import.with_powers, 2, 'the agent binds the engine socket, Other Stuff takes the host network');
  const reasons = Object.fromEntries(repo.import.refused.map((x: { app: string; reason: string }) => [x.app, x.reason]));
  assert.equal(reasons['other-repo-stack'], 'stack file lives in another repository https://github.com/someone/else');
  assert.equal(reasons['portainer-agent'], undefined);
  // Issue #26, class 6: the global swarm service runs as one container; these two are refused, and say why.
  assert.equal(reasons['swarm-global'], undefined);
  assert.equal(reasons['bind-only'], 'a volume binds /srv/media but has no container path');
  assert.equal(reasons['missing-stack'], 'stack file stacks/missing/docker-compose.yml is not in the repository');

  const store = (await api.get('/api/store/apps')).body as { repo: string; app: string }[];
  const ids = store.filter((a) => a.repo === repo.id).map((a) => a.app);
  assert.deepEqual(ids.sort(), ['nginx-web-server', 'nginx-web-server-2', 'other-stuff', 'portainer-agent', 'swarm-global', 'swarm-whoami', 'wiki-stack']);

  const wiki = await api.get(`/api/store/apps/${repo.id}/wiki-stack`);
  assert.equal(wiki.status, 200);
  assert.equal(wiki.body.template.name, 'Wiki Stack');
  const ids2 = wiki.body.template.fields.map((f: { id: string }) => f.id);
  assert.deepEqual(ids2, ['wiki_port', 'db_password', 'title', 'log_level', 'appdata_dir']);
  assert.equal(wiki.body.values.wiki_port, 8090);
});
