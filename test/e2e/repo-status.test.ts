// The cache status of an app's template repo (issue 24 item 9, SPEC Resources "Repo: cache status"): the apps list
// and the app's Configure tab show the commit, its date, the last synchronisation and the repo's VERSION, in en and
// nl; GET /api/stacks carries them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addInstalledStack } from './store-helpers.ts';
import { launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

requireBuiltWeb();

const PW = 'correct-horse-battery';
const STACK = 'kadetest-repostatus';
// The repo's commit is from Pi day 2026, far from today's synchronisation, so the two dates are told apart.
const COMMIT_DATE = '2026-03-14T12:00:00Z';
let git: Awaited<ReturnType<typeof startGitServer>>;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let commit = '';
const problems: string[] = [];

before(async () => {
  // The helper's git takes its environment from this process when it starts: the fixture commit gets a date of its own.
  process.env.GIT_COMMITTER_DATE = COMMIT_DATE;
  process.env.GIT_AUTHOR_DATE = COMMIT_DATE;
  try {
    git = await startGitServer();
    await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  } finally {
    delete process.env.GIT_COMMITTER_DATE;
    delete process.env.GIT_AUTHOR_DATE;
  }
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  await api.addSyncedRepo('Basic', git.url('basic'));
  const repo = (await api.get<{ id: string; status: { commit: string } }[]>('/api/repos')).body[0];
  commit = repo?.status.commit ?? '';
  addInstalledStack(server.baseDir, STACK, repo?.id ?? 'basic', 'hello');
  await api.acceptFiles(STACK);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await git?.close();
});

test('GET /api/stacks gives the repo status with commit, commit date, last synchronisation and VERSION', async () => {
  const stacks = (await api.get<{ name: string; repo_status: Record<string, unknown> }[]>('/api/stacks')).body;
  const s = stacks.find((x) => x.name === STACK)?.repo_status;
  assert.ok(s, JSON.stringify(stacks));
  assert.equal(s.commit, commit);
  assert.equal(Date.parse(String(s.commit_date)), Date.parse(COMMIT_DATE));
  assert.ok(Date.now() - Date.parse(String(s.synced_at)) < 10 * 60_000, `synced just now: ${s.synced_at}`);
  assert.equal(s.version, 'v0.1.00');
  assert.equal(s.outdated, false);
});

const TEXT = {
  en: {
    date: /14 Mar 2026/,
    line: /Repo at commit (\w{7}) of 14 Mar 2026.* · synchronised .* · VERSION v0\.1\.00/,
    commitDate: 'Commit date',
    version: 'Repository VERSION',
  },
  nl: {
    date: /14 mrt 2026/,
    line: /Repo op commit (\w{7}) van 14 mrt 2026.* · gesynchroniseerd .* · VERSION v0\.1\.00/,
    commitDate: 'Datum van de commit',
    version: 'VERSION van de repository',
  },
};

for (const [lang, width] of [
  ['en', 1280],
  ['nl', 390],
] as const) {
  test(`${lang} at ${width} px: the apps list and the Configure tab show the repo's commit, its date, the last sync and VERSION`, async () => {
    const t = TEXT[lang];
    const page = await logInAt(browser, problems, { url: `${server.url}/apps`, lang, width, password: PW });
    const row = page.locator('li').filter({ has: page.getByRole('heading', { name: STACK }) });
    const line = row.locator('.stack-repo');
    await visible(line);
    const text = (await line.textContent()) ?? '';
    assert.match(text, t.line);
    assert.equal(t.line.exec(text)?.[1], commit.slice(0, 7));
    await shoot(page, `repo-status-apps-${lang}`);

    await page.goto(`${server.url}/apps/${STACK}#configure`);
    const facts = page.locator('.configure-facts');
    await visible(facts.getByText(t.commitDate));
    const row2 = facts.locator('div').filter({ has: page.getByText(t.commitDate, { exact: true }) });
    assert.match((await row2.locator('dd').textContent()) ?? '', t.date);
    const row3 = facts.locator('div').filter({ has: page.getByText(t.version, { exact: true }) });
    assert.equal(((await row3.locator('dd').textContent()) ?? '').trim(), 'v0.1.00');
    await shoot(page, `repo-status-configure-${lang}`);
    await page.context().close();
  });
}

test('no console errors or failed requests', () => assert.deepEqual(problems, []));
