// Issue 23 item 11, from the attacker's side: a template repo marks a field as the app's address (`credential: url`)
// and the value an app carries there is `javascript:…`. The admin's credentials panel shows it as text, never as a
// link that would run in Kade's page on a click (the CSP is the second line, not the first).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { emptyMeta } from '../../src/server/stacks/store/stack-files.ts';
import { launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from '../e2e/web-helpers.ts';
import { ApiClient } from '../helpers/client.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

requireBuiltWeb();

const PW = 'correct-horse-battery';
const APP = 'kadetest-creds-link';
const HOSTILE = 'javascript://kade/%0adocument.title="owned"';
let root: string;
let git: GitServer;
let server: TestServer;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'kade-creds-link-'));
  const dir = join(root, 'repo', 'apps', 'linky');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'template.json'),
    JSON.stringify({
      name: 'Linky',
      description: { en: 'x', nl: 'x' },
      version: '1.0.0',
      metadata: { categories: ['developer'] },
      fields: [{ id: 'address', label: { en: 'Address', nl: 'Adres' }, credential: 'url' }],
    }),
  );
  writeFileSync(join(dir, 'docker-compose.yml'), 'services:\n  web:\n    image: kade-test/busybox:1\n');
  git = await startGitServer();
  await git.addRepo('linky', join(root, 'repo'), { branch: 'main' });
  server = await startTestServer();
  const api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  await api.addSyncedRepo('linky', git.url('linky'));
  const repo = (await api.get<{ id: string; name: string }[]>('/api/repos')).body.find((r) => r.name === 'linky')?.id ?? 'linky';
  // The app as an install of that template left it, its address value chosen by whoever filled the form or the store.
  const stack = join(server.baseDir, 'stacks', APP);
  mkdirSync(stack, { recursive: true });
  writeFileSync(join(stack, 'docker-compose.yml'), 'services:\n  web:\n    image: kade-test/busybox:1\n');
  const meta = emptyMeta(new Date(0).toISOString(), {
    source: { repo, app: 'linky', commit: null },
    values: { address: HOSTILE },
    value_types: { address: 'string' },
  });
  writeFileSync(join(stack, '.svc.json'), `${JSON.stringify(meta)}\n`, { mode: 0o600 });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await git?.close();
  rmSync(root, { recursive: true, force: true });
});

test('a credential address that is not http(s) is shown as text, never as a link', async () => {
  const page = await logInAt(browser, problems, { url: server.url, lang: 'en', width: 1280, password: PW });
  await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
  await page.goto(`${server.url}/apps/${APP}`);
  const panel = page.getByRole('region', { name: 'Credentials', exact: true });
  await panel.getByRole('button', { name: 'Show credentials' }).click();
  await visible(panel.getByText(HOSTILE, { exact: true }));
  await shoot(page, 'security-credentials-link');
  assert.equal(await page.locator('a[href^="javascript"]').count(), 0, 'a javascript: link is on the page');
  assert.equal(await panel.getByRole('link').count(), 0);
  assert.notEqual(await page.title(), 'owned');
});
