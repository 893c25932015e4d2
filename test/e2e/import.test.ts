import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../engine/contract-helpers.ts';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, hasText, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// Issue #17: a Runtipi-format repo added on the repos screen, its import report, and one of its apps installed
// through Kade's own form (a generated secret, a port field, a source text with `{{` that stays literal).
requireBuiltWeb();

const PW = 'correct-horse-battery';
const tag = randomBytes(3).toString('hex');
const STACKS = { en: `kadetest-tipi-en-${tag}`, nl: `kadetest-tipi-nl-${tag}` };
let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
const installed: string[] = [];
const problems: string[] = [];

before(async () => {
  await requireEngine();
  git = await startGitServer();
  await git.addRepo('tipi', 'test/fixtures/import/runtipi', { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  browser = await launchBrowser();
});

after(async () => {
  try {
    for (const name of installed) await api.removeApp(name);
  } finally {
    await browser?.close();
    await server?.close();
    await git?.close();
    await cleanupLabelled();
  }
});

const TEXT = {
  en: {
    add: 'Add repository',
    report: 'Format: Runtipi · 2 of 3 apps imported',
    install: 'Install Echo Tipi',
    name: 'Name of this installation',
    next: 'Next',
    installBtn: 'Install',
    done: 'Done',
    port: 'Web interface port',
  },
  nl: {
    add: 'Repository toevoegen',
    report: 'Formaat: Runtipi · 2 van 3 apps geïmporteerd',
    install: 'Echo Tipi installeren',
    name: 'Naam van deze installatie',
    next: 'Volgende',
    installBtn: 'Installeren',
    done: 'Klaar',
    port: 'Poort van de webinterface',
  },
};

async function installThroughForm(page: Page, lang: 'en' | 'nl'): Promise<number> {
  const tx = TEXT[lang];
  await page.goto(`${server.url}/store`);
  await page.getByRole('link', { name: tx.install }).click();
  await page.getByLabel(tx.name).fill(STACKS[lang]);
  const port = await freePort();
  await page.getByLabel(tx.port, { exact: true }).fill(String(port));
  // Runtipi's `random` fields: generated secrets, filled by the server when left empty.
  assert.equal(await page.locator('.install-form [name="echo_session_key"]').inputValue(), '');
  await shoot(page, `import-install-form-${lang}`);
  await page.getByRole('button', { name: tx.next }).click();
  await page.getByRole('button', { name: tx.installBtn, exact: true }).click();
  installed.push(STACKS[lang]);
  await hasText(page.locator('.job-progress-state'), tx.done, 120_000);
  await shoot(page, `import-install-done-${lang}`);
  return port;
}

test('en at 1280 px: the Runtipi repo is added on the repos screen, reports its format and refusals, and Echo Tipi installs through the form', async () => {
  const page = await logInAt(browser, problems, { url: `${server.url}/repos`, lang: 'en', width: 1280, password: PW });
  const form = page.locator('form.repo-form');
  await form.locator('[name="name"]').fill('Tipi store');
  await form.locator('[name="url"]').fill(git.url('tipi'));
  await form.locator('[name="subdirectory"]').fill('apps');
  await form.getByRole('button', { name: TEXT.en.add }).click();
  await visible(page.getByText(TEXT.en.report), 60_000);
  const refused = page.locator('.repo-skipped');
  await visible(refused.getByText('odd-tipi', { exact: true }));
  await visible(refused.getByText(/type 'colour-wheel', which Kade has no field for/));
  // What the import dropped: Runtipi's proxy labels and its network, per app.
  await page.getByText('What was dropped or mapped for Kade, per app').click();
  const notes = page.locator('.repo-import-notes');
  await visible(
    notes
      .locator('li')
      .filter({ hasText: 'echo-tipi' })
      .getByText(/labels of the store.s proxy dropped.*the store.s own network dropped|the store.s own network dropped.*labels of the store.s proxy dropped/),
  );
  await shoot(page, 'import-repos-en');
  // The same report in the API.
  const repo = await api.get<{ import: { format: string; found: number; imported: number; refused: { app: string; reason: string }[] } }>(
    '/api/repos/tipi-store',
  );
  assert.equal(repo.status, 200);
  assert.deepEqual(
    { ...repo.body.import, notes: undefined },
    {
      format: 'runtipi',
      found: 3,
      imported: 2,
      refused: [{ app: 'odd-tipi', reason: "form field ODD_COLOUR has the type 'colour-wheel', which Kade has no field for" }],
      notes: undefined,
      with_powers: 0,
    },
  );

  const port = await installThroughForm(page, 'en');
  // The app serves the greeting: the source's `{{name}}` default and `{{not-a-tag}}` reach it as plain text.
  await eventually(async () => {
    const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    assert.equal(body.trim(), 'Hello {{name}} {{not-a-tag}}');
  }, 30_000);
  // The generated secrets went to the app's .env, referenced from its compose file; the proxy labels are gone.
  const env = await api.get<{ content: string }>(`/api/stacks/${STACKS.en}/env?reveal=1`);
  assert.equal(env.status, 200);
  assert.match(env.body.content, /ECHO_SESSION_KEY=['"]?[A-Za-z0-9_-]{32}/);
  const compose = await api.get<{ content: string }>(`/api/stacks/${STACKS.en}/compose`);
  assert.equal(compose.status, 200);
  assert.match(compose.body.content, /ECHO_SESSION_KEY=\$\{ECHO_SESSION_KEY\}/);
  assert.ok(!compose.body.content.includes('traefik'));
  await page.context().close();
});

test('nl at 390 px: the repos screen reports the import in Dutch, and the form installs a second Echo Tipi', async () => {
  const page = await logInAt(browser, problems, { url: `${server.url}/repos`, lang: 'nl', width: 390, password: PW });
  await visible(page.getByText(TEXT.nl.report));
  await visible(page.locator('.repo-skipped').getByText('odd-tipi', { exact: true }));
  await shoot(page, 'import-repos-nl');
  const port = await installThroughForm(page, 'nl');
  await eventually(async () => {
    const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    assert.equal(body.trim(), 'Hello {{name}} {{not-a-tag}}');
  }, 30_000);
  await page.context().close();
});

test('no browser problems', () => assert.deepEqual(problems, []));
