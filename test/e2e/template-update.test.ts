// A store update reaches the installed app (issue 26, template_update): an app installed from a repo served on
// loopback; the repo gets a commit raising the app's template version with a new field; after a sync the apps list
// and the app view show "Template 1.1.0 in the store" (nl: "Sjabloon 1.1.0 in de winkel"), the Configure tab says its
// form is that version's, and applying it renders the new template into the app's files (the new field's default),
// after which the badge and the note go without a reload. One app per language.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../engine/contract-helpers.ts';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine, TEST_LABEL_VALUE } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasCount, hasText, launchBrowser, logInAt, removeStackContainers, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

requireBuiltWeb();

const PW = 'correct-horse-battery';
const suffix = randomBytes(3).toString('hex');
const APPS = { en: `kadetest-tplupd-en-${suffix}`, nl: `kadetest-tplupd-nl-${suffix}` };
const GREETING = 'Hello from template 1.1.0';

let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let repoDir = '';
const installed: string[] = [];
const problems: string[] = [];

const hello = () => join(repoDir, 'apps', 'hello');
const edit = (path: string, change: (text: string) => string) => writeFileSync(path, change(readFileSync(path, 'utf8')));
const stackFile = (name: string, file: string) => readFileSync(join(server.baseDir, 'stacks', name, file), 'utf8');
const listed = async (name: string) => {
  const r = await api.get<{ name: string; template_update: string | null }[]>('/api/stacks');
  return r.body.find((s) => s.name === name);
};

/** The store's new version of hello: version 1.1.0 with a field `greeting` (with a default) that reaches the environment. */
function raiseTemplate(): void {
  edit(join(hello(), 'template.json'), (text) => {
    const template = JSON.parse(text);
    template.version = '1.1.0';
    template.fields.push({ id: 'greeting', label: { en: 'Greeting', nl: 'Begroeting' }, default: GREETING });
    return JSON.stringify(template, null, 2);
  });
  edit(join(hello(), 'docker-compose.yml'), (text) =>
    text.replace('      MESSAGE: "{{message}}"\n', '      MESSAGE: "{{message}}"\n      GREETING: "{{greeting}}"\n'),
  );
}

before(async () => {
  await requireEngine();
  // A copy of the basic fixture whose containers carry this lane's test label, so a cleanup of the lane finds them.
  repoDir = mkdtempSync(join(tmpdir(), 'kade-e2e-tplupd-'));
  cpSync('test/fixtures/repos/basic', repoDir, { recursive: true });
  edit(join(hello(), 'docker-compose.yml'), (text) => text.replace('kade.test: "1"', `kade.test: "${TEST_LABEL_VALUE}"`));
  git = await startGitServer();
  await git.addRepo('basic', repoDir, { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  await api.addSyncedRepo('Basic', git.url('basic'));
  const repo = (await api.get<{ id: string }[]>('/api/repos')).body[0]?.id ?? 'basic';
  for (const name of Object.values(APPS)) {
    const r = await api.post<{ job: { id: string } }>('/api/store/install', {
      repo,
      app: 'hello',
      name,
      values: { port: await freePort(), message: 'first message' },
    });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    installed.push(name);
    const job = await api.waitJob(r.body.job.id);
    assert.equal(job.state, 'succeeded', job.log.join('\n'));
  }
  browser = await launchBrowser();
});

after(async () => {
  try {
    for (const name of installed) await api.removeApp(name);
  } finally {
    await browser?.close();
    await server?.close();
    await git?.close();
    for (const name of installed) await removeStackContainers(name);
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
  }
});

const menu = (page: Page, name: string) =>
  page
    .getByRole('navigation', { name: /^(Main|Hoofdmenu)$/ })
    .getByRole('link', { name, exact: true })
    .click();
const row = (page: Page, name: string) => page.getByRole('listitem', { name });
const badge = (scope: ReturnType<Page['locator']>) => scope.locator('.badge-template');

const TEXT = {
  en: {
    apps: 'Apps',
    badge: 'Template 1.1.0 in the store',
    hint: 'The store holds version 1.1.0 of this app’s template; Apply changes under Configure brings the app to it.',
    note: 'Version 1.1.0 of this template is in the store; the form below is that version’s, and Apply changes brings the app to it.',
    configure: 'Configure',
    greeting: 'Greeting',
    version: 'Template version',
    apply: 'Apply changes',
    done: 'Done',
  },
  nl: {
    apps: 'Apps',
    badge: 'Sjabloon 1.1.0 in de winkel',
    hint: 'De winkel heeft versie 1.1.0 van het sjabloon van deze app; Wijzigingen toepassen onder Instellen brengt de app daarnaar.',
    note: 'Versie 1.1.0 van dit sjabloon staat in de winkel; het formulier hieronder hoort bij die versie, en Wijzigingen toepassen brengt de app daarnaar.',
    configure: 'Instellen',
    greeting: 'Begroeting',
    version: 'Sjabloonversie',
    apply: 'Wijzigingen toepassen',
    done: 'Klaar',
  },
};

test('installed from the repo at 1.0.0: no template update', async () => {
  for (const name of Object.values(APPS)) assert.equal((await listed(name))?.template_update, null, name);
  assert.match(stackFile(APPS.en, '.svc.json'), /"template_version": "1.0.0"/);
});

/** Configure in the app view: its note and the new field with its default, applied by a job; badge and note go, the facts say 1.1.0. */
async function applyNewTemplate(page: Page, lang: 'en' | 'nl'): Promise<void> {
  const t = TEXT[lang];
  const name = APPS[lang];
  const head = page.locator('.appview-update');
  await hasText(badge(head), t.badge);
  assert.equal(await badge(head).getAttribute('title'), t.hint);
  await shoot(page, `template-update-app-${lang}`);

  await page.getByRole('tab', { name: t.configure }).click();
  const form = page.locator('form.configure-form');
  const greeting = form.getByLabel(t.greeting, { exact: true });
  await visible(greeting);
  await hasText(page.locator('.configure-template-update'), t.note);
  const facts = page.locator('.configure-facts div').filter({ has: page.getByText(t.version, { exact: true }) });
  await hasText(facts.locator('dd'), '1.0.0');
  assert.equal(await greeting.inputValue(), GREETING, 'the new field starts at its default');
  assert.equal(await form.locator('[name="message"]').inputValue(), 'first message', 'the stored values stay');
  await shoot(page, `template-update-configure-${lang}`);
  // A mark in the page's window: gone if anything below loaded the page again.
  await page.evaluate(() => Object.assign(window, { templateUpdateMark: true }));
  await form.getByRole('button', { name: t.apply }).click();
  await hasText(page.locator('.configure-run .job-progress-state'), t.done, 120_000);

  // Without a reload: the header's badge goes and the template facts give the version now rendered.
  await hasCount(badge(head), 0);
  await hasCount(page.locator('.configure-template-update'), 0);
  await hasText(facts.locator('dd'), '1.1.0');
  assert.equal(await page.evaluate(() => 'templateUpdateMark' in window), true, 'the page was not loaded again');
  assert.match(stackFile(name, 'docker-compose.yml'), new RegExp(`GREETING: "?${GREETING}"?`));
  const meta = JSON.parse(stackFile(name, '.svc.json'));
  assert.equal(meta.template_version, '1.1.0');
  assert.equal(meta.values.greeting, GREETING);
  assert.equal((await listed(name))?.template_update, null);
  await shoot(page, `template-update-applied-${lang}`);
}

test('en at 1280 px: a sync of the new commit shows the badge in the list and the app view; Configure applies it and the badge goes', async () => {
  const t = TEXT.en;
  const page = await logInAt(browser, problems, { url: `${server.url}/apps`, lang: 'en', width: 1280, password: PW });
  await visible(row(page, APPS.en));
  assert.equal(await badge(row(page, APPS.en)).count(), 0, 'no badge before the store changed');

  raiseTemplate();
  await git.commit('basic', repoDir, 'hello 1.1.0: a greeting');
  await menu(page, 'Repositories');
  await page.getByRole('button', { name: 'Fetch Basic again' }).click();
  await hasText(page.locator('.job-progress-state'), t.done, 30_000);
  assert.equal((await listed(APPS.en))?.template_update, '1.1.0');

  await menu(page, t.apps);
  for (const name of Object.values(APPS)) await hasText(badge(row(page, name)), t.badge);
  await shoot(page, 'template-update-list-en');

  await row(page, APPS.en).getByRole('link', { name: APPS.en, exact: true }).click();
  await applyNewTemplate(page, 'en');

  // Back in the list (no reload): this app's badge went, the other app still waits for its Configure.
  await menu(page, t.apps);
  await visible(row(page, APPS.en));
  await hasCount(badge(row(page, APPS.en)), 0);
  await hasText(badge(row(page, APPS.nl)), t.badge);
  await page.context().close();
});

test('nl at 390 px: the badge in Dutch in the list and the app view; Instellen applies the new template and the badge goes', async () => {
  const t = TEXT.nl;
  const page = await logInAt(browser, problems, { url: `${server.url}/apps`, lang: 'nl', width: 390, password: PW });
  await hasText(badge(row(page, APPS.nl)), t.badge);
  await hasCount(badge(row(page, APPS.en)), 0);
  await shoot(page, 'template-update-list-nl');
  await row(page, APPS.nl).getByRole('link', { name: APPS.nl, exact: true }).click();
  await applyNewTemplate(page, 'nl');
  await menu(page, t.apps);
  await visible(row(page, APPS.nl));
  await hasCount(page.locator('.badge-template'), 0);
  await page.context().close();
});

test('no console errors or failed requests', () => assert.deepEqual(problems, []));
