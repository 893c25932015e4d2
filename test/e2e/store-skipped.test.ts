import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { isFocused, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// Templates that fail validation: the store says how many, the repos screen says why (issue 11 item 4).
requireBuiltWeb();

const PW = 'correct-horse-battery';
let git: GitServer;
let server: TestServer;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  git = await startGitServer();
  await git.addRepo('broken', 'test/fixtures/repos/broken', { branch: 'main' });
  server = await startTestServer();
  const api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  const r = await api.post('/api/repos', { id: 'broken', name: 'Broken', url: git.url('broken'), subdirectory: 'apps' });
  assert.equal((await api.waitJob(r.body.job.id)).state, 'succeeded');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
  await git?.close();
});

const TEXT = {
  en: { count: '5 apps of Broken could not be read.', link: 'Why apps of Broken could not be read' },
  nl: {
    count: '5 apps uit Broken konden niet worden gelezen.',
    link: 'Waarom apps uit Broken niet gelezen konden worden',
  },
};

for (const [lang, width] of [
  ['en', 1280],
  ['nl', 390],
] as const) {
  test(`${lang} at ${width} px: the store counts the unreadable apps and links to their reasons`, async () => {
    const page = await logInAt(browser, problems, { url: `${server.url}/store`, lang, width, password: PW });
    await visible(page.getByText(TEXT[lang].count));
    await shoot(page, `store-skipped-${lang}-${width}`);
    await page.getByRole('link', { name: TEXT[lang].link }).click();
    const section = page.locator('#skipped-broken');
    await isFocused(section);
    assert.equal(new URL(page.url()).pathname, '/repos');
    for (const app of ['nolabel', 'badjson', 'badtype', 'badyaml', 'Upper_Case']) await visible(section.getByText(app, { exact: true }));
    await visible(section.getByText(/fields\.1\.label/));
    await shoot(page, `repos-skipped-${lang}-${width}`);
    await page.context().close();
  });
}

test('no browser problems', () => assert.deepEqual(problems, []));
