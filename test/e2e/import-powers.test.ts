import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../engine/contract-helpers.ts';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, hasCount, hasText, launchBrowser, requireBuiltWeb, shoot, visible, watchPage } from './web-helpers.ts';

// Issue #26, class 1: an app of another store that binds the engine socket is imported, marked in the store with its
// power, shown to an operator as needing an admin, and installed by an admin once the review named the power and the
// admin allowed it (audited). Fixture: test/fixtures/import/runtipi/powers (dozzle-tipi binds /var/run/docker.sock).
requireBuiltWeb();

const PW = 'correct-horse-battery';
const tag = randomBytes(3).toString('hex');
const STACKS = { en: `kadetest-dozzle-en-${tag}`, nl: `kadetest-dozzle-nl-${tag}` };
let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
const installed: string[] = [];
const problems: string[] = [];

const TEXT = {
  en: {
    login: { user: 'User name', pw: 'Password', button: 'Log in' },
    badge: 'Powers over the host',
    socket: 'Full control of every container on this host',
    needsAdmin: 'Needs an admin: only an admin can install this app',
    install: 'Install Dozzle Tipi',
    name: 'Name of this installation',
    port: 'Web interface port',
    next: 'Next',
    installBtn: 'Install',
    review: 'Full control of every container on this host: the engine socket /var/run/docker.sock (dozzle-tipi)',
    adminOnly: /Only an admin can install this app \(setting ALLOW_PRIVILEGED_APPS\)/,
    confirm: 'I allow this app these powers over the host',
    confirmNeeded: 'Tick that you allow these powers before you install.',
    done: 'Done',
  },
  nl: {
    login: { user: 'Gebruikersnaam', pw: 'Wachtwoord', button: 'Inloggen' },
    badge: 'Macht over de host',
    socket: 'Volledige controle over elke container op deze host',
    needsAdmin: 'Vraagt een beheerder: alleen een beheerder kan deze app installeren',
    install: 'Dozzle Tipi installeren',
    name: 'Naam van deze installatie',
    port: 'Poort van de webinterface',
    next: 'Volgende',
    installBtn: 'Installeren',
    review: 'Volledige controle over elke container op deze host: de engine-socket /var/run/docker.sock (dozzle-tipi)',
    adminOnly: /Alleen een beheerder kan deze app installeren \(instelling ALLOW_PRIVILEGED_APPS\)/,
    confirm: 'Ik geef deze app deze macht over de host',
    confirmNeeded: 'Vink aan dat je deze macht toestaat voordat je installeert.',
    done: 'Klaar',
  },
};

before(async () => {
  await requireEngine();
  git = await startGitServer();
  await git.addRepo('powers', 'test/fixtures/import/runtipi/powers', { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  await api.addSyncedRepo('powers', git.url('powers'));
  assert.equal((await api.post('/api/users', { name: 'oper', password: PW, role: 'operator' })).status, 201);
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

async function logIn(user: 'admin' | 'oper', lang: 'en' | 'nl', width: number): Promise<Page> {
  const context = await browser.newContext({ locale: lang === 'nl' ? 'nl-NL' : 'en-US', viewport: { width, height: 900 } });
  const page = await context.newPage();
  watchPage(page, problems);
  await page.goto(`${server.url}/store`);
  const tx = TEXT[lang].login;
  await page.getByLabel(tx.user).fill(user);
  await page.getByLabel(tx.pw).fill(PW);
  await page.getByRole('button', { name: tx.button }).click();
  return page;
}

const card = (page: Page) => page.locator('li.store-card').filter({ has: page.getByRole('heading', { name: 'Dozzle Tipi', exact: true }) });

/** The install form of Dozzle Tipi filled in (a free port, the name) and moved on to its review. */
async function toReview(page: Page, lang: 'en' | 'nl', name?: string): Promise<void> {
  const tx = TEXT[lang];
  if (name) await page.getByLabel(tx.name).fill(name);
  await page.getByLabel(tx.port, { exact: true }).fill(String(await freePort()));
  await page.getByRole('button', { name: tx.next }).click();
  await visible(page.locator('.install-review'));
}

for (const lang of ['en', 'nl'] as const) {
  test(`${lang}: an operator sees the power on the store card and that the app needs an admin; the review does not let them install`, async () => {
    const tx = TEXT[lang];
    const page = await logIn('oper', lang, lang === 'en' ? 1280 : 390);
    const c = card(page);
    await visible(c);
    await visible(c.getByText(tx.badge, { exact: true }));
    await visible(c.getByText(tx.socket, { exact: true }));
    await visible(c.getByText(tx.needsAdmin));
    await hasCount(c.getByRole('link', { name: tx.install }), 0);
    await shoot(page, `import-powers-store-operator-${lang}`);
    // The form itself (reached by its address) names the power and keeps the install from starting.
    await page.goto(`${server.url}/store/powers/dozzle-tipi/install`);
    await toReview(page, lang);
    const box = page.locator('.powers-warning');
    await visible(box.getByText(tx.review, { exact: true }));
    await visible(box.getByText(tx.adminOnly));
    await hasCount(box.getByLabel(tx.confirm), 0);
    assert.equal(await page.getByRole('button', { name: tx.installBtn, exact: true }).isDisabled(), true);
    await shoot(page, `import-powers-review-operator-${lang}`);
    await page.context().close();
  });

  test(`${lang}: an admin installs the app that binds the engine socket after allowing its power in the review`, async () => {
    const tx = TEXT[lang];
    const page = await logIn('admin', lang, lang === 'en' ? 1280 : 390);
    const c = card(page);
    await visible(c.getByText(tx.socket, { exact: true }));
    await hasCount(c.getByText(tx.needsAdmin), 0);
    await c.getByRole('link', { name: tx.install }).click();
    await toReview(page, lang, STACKS[lang]);
    const box = page.locator('.powers-warning');
    await visible(box.getByText(tx.review, { exact: true }));
    await visible(box.getByText(tx.confirmNeeded));
    const install = page.getByRole('button', { name: tx.installBtn, exact: true });
    assert.equal(await install.isDisabled(), true, 'no install before the power is allowed');
    await shoot(page, `import-powers-review-admin-${lang}`);
    await box.getByLabel(tx.confirm).check();
    await hasCount(box.getByText(tx.confirmNeeded), 0);
    await eventually(async () => assert.equal(await install.isDisabled(), false));
    await install.click();
    installed.push(STACKS[lang]);
    await hasText(page.locator('.job-progress-state'), tx.done, 120_000);
    await shoot(page, `import-powers-installed-${lang}`);
    await page.context().close();

    // Allowed once, audited: the socket by the admin's confirmation, the power beside it.
    for (const action of ['outside_path_allow', 'powers_allow']) {
      const audit = await api.get<{ total: number; entries: { user: string; target: string }[] }>(`/api/audit?action=${action}&q=${STACKS[lang]}`);
      assert.equal(audit.body.total, 1, `${action}: ${JSON.stringify(audit.body)}`);
      assert.equal(audit.body.entries[0]?.user, 'admin');
    }
    const compose = await api.get<{ content: string }>(`/api/stacks/${STACKS[lang]}/compose`);
    assert.match(compose.body.content, /\/var\/run\/docker\.sock:\/var\/run\/docker\.sock:ro/);
  });
}

test('what the admin set up keeps running for an operator: a restart judged at use passes the sealed power', async () => {
  const op = new ApiClient(server.url);
  await op.loginAs('oper', PW);
  const r = await op.post<{ job: { id: string } }>(`/api/stacks/${STACKS.en}/restart`);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await op.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  // An operator may not bring the power in on their own: the same app, installed by them, is refused.
  const refused = await op.post('/api/store/install', { repo: 'powers', app: 'dozzle-tipi', name: `kadetest-dozzle-op-${tag}`, values: {} });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.equal(refused.body.code, 'app_powers_refused');
});

test('no browser problems', () => assert.deepEqual(problems, []));
