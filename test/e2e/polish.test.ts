// The smaller findings of issue 24 item 21, as a user meets them, in en and nl at both widths: the same repo added
// twice is refused naming the first; a repo with no apps says so; a backup of a removed app is not a link to
// "not found"; a page above the user's role names the role; the containers screen has a search; the audit log's
// source "networks" and its details are translated; the menu is one line; a network's delete button stays in its card.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { type BasicKade, startBasicKade } from '../helpers/basic-kade.ts';
import type { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import type { GitServer } from '../helpers/git-server.ts';
import type { TestServer } from '../helpers/server.ts';
import { addStoppedStack, eventually, hasCount, hasText, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

requireBuiltWeb();

const execFileP = promisify(execFile);
const PW = 'correct-horse-battery';
const GONE = 'kadetest-gone';
const NET = 'kadetest-polish-net';
const CTR = `kadetest-polish-${process.pid}`;
let kade: BasicKade;
let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let empty: string;
const problems: string[] = [];

before(async () => {
  await requireEngine();
  kade = await startBasicKade(PW);
  ({ git, server, api } = kade);
  // A repo that holds no app at all.
  empty = mkdtempSync(join(tmpdir(), 'kade-empty-repo-'));
  mkdirSync(join(empty, 'apps'));
  writeFileSync(join(empty, 'apps', 'README.md'), 'nothing here yet\n');
  await git.addRepo('empty', empty, { branch: 'main' });
  await api.addSyncedRepo('Empty', git.url('empty'));
  assert.equal((await api.post('/api/users', { name: 'vera', password: PW, role: 'viewer' })).status, 201);
  // A backup of an app that is removed afterwards.
  addStoppedStack(server.baseDir, GONE);
  await api.acceptFiles(GONE);
  const backup = await api.post<{ job: { id: string } }>('/api/backups', { stack: GONE });
  assert.equal(backup.status, 202, JSON.stringify(backup.body));
  assert.equal((await api.waitJob(backup.body.job.id)).state, 'succeeded');
  const del = await api.del<{ job: { id: string } }>(`/api/stacks/${GONE}`);
  assert.equal(del.status, 202, JSON.stringify(del.body));
  assert.equal((await api.waitJob(del.body.job.id)).state, 'succeeded');
  // A network (an audit entry of source networks) and a container of our own to search for.
  const net = await api.post('/api/networks', { name: NET, subnet: '10.251.31.0/24' });
  assert.equal(net.status, 201, JSON.stringify(net.body));
  await execFileP('docker', ['run', '-d', '--name', CTR, '--label', 'kade.test=1', '--network', 'none', 'kade-test/busybox:1', 'sleep', '600']);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await kade?.close();
  await cleanupLabelled();
  rmSync(empty, { recursive: true, force: true });
});

const menu = (page: Page) => page.getByRole('navigation', { name: /^(Main|Hoofdmenu)$/ });
const go = async (page: Page, name: string) => menu(page).getByRole('link', { name, exact: true }).click();

test('en: the same repo twice is refused naming the first; a repo without apps says so', async () => {
  const page = await logInAt(browser, problems, { url: server.url, lang: 'en', width: 1280, password: PW });
  await go(page, 'Repositories');
  await hasText(
    page.locator('.repo-no-apps'),
    'No apps were found in the folder “apps” of branch main. Each app is a folder there with a template.json (or in another store’s format): check the folder with the apps under Edit.',
  );
  const form = page.getByRole('form', { name: 'Add a repository' });
  await form.getByLabel('Name', { exact: true }).fill('Basic again');
  await form.getByLabel('Address', { exact: true }).fill(git.url('basic'));
  await form.getByLabel('Folder with the apps', { exact: true }).fill('apps');
  await form.getByRole('button', { name: 'Add repository' }).click();
  await visible(form.getByText('This repository is added already as “Basic” (basic), with the same branch and folder.'));
  assert.equal((await api.get<unknown[]>('/api/repos')).body.length, 2, 'nothing was added');
  await shoot(page, 'polish-repos-en');
  await page.context().close();
});

test('nl: the same texts in Dutch', async () => {
  const page = await logInAt(browser, problems, { url: server.url, lang: 'nl', width: 390, password: PW });
  await go(page, 'Repositories');
  await visible(page.getByText('In de map “apps” van branch main zijn geen apps gevonden.', { exact: false }));
  await page.context().close();
});

test('a backup of a removed app names the app without a link; a present app links to its view', async () => {
  for (const lang of ['en', 'nl'] as const) {
    const page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PW });
    await go(page, lang === 'en' ? 'Backups' : 'Back-ups');
    const head = page.getByRole('heading', { name: new RegExp(`^${GONE}`), level: 2 });
    await hasText(head, `${GONE} ${lang === 'en' ? 'app removed' : 'app verwijderd'}`);
    await hasCount(head.getByRole('link'), 0);
    await shoot(page, `polish-backups-${lang}`);
    await page.context().close();
  }
});

test('a viewer at an admin page reads which role it needs, not "Page not found"', async () => {
  for (const [lang, title, need] of [
    ['en', 'Settings', 'This page is for admins only.'],
    ['nl', 'Instellingen', 'Deze pagina is alleen voor beheerders.'],
  ] as const) {
    const context = await browser.newContext({ locale: lang === 'nl' ? 'nl-NL' : 'en-US', viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByLabel(lang === 'nl' ? 'Gebruikersnaam' : 'User name').fill('vera');
    await page.getByLabel(lang === 'nl' ? 'Wachtwoord' : 'Password').fill(PW);
    await page.getByRole('button', { name: lang === 'nl' ? 'Inloggen' : 'Log in' }).click();
    await visible(menu(page));
    await page.goto(`${server.url}/settings`);
    await visible(page.getByRole('heading', { name: title, level: 1 }));
    await visible(page.getByText(need));
    await visible(
      page.getByText(lang === 'nl' ? 'Je bent ingelogd als vera, met de rol kijker.' : 'You are signed in as vera, with the role viewer.', { exact: false }),
    );
    await shoot(page, `polish-role-${lang}`);
    await context.close();
  }
});

test('the containers screen finds a container by name and narrows by kind, in en and nl', async () => {
  for (const lang of ['en', 'nl'] as const) {
    const page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PW });
    await go(page, 'Containers');
    await visible(page.getByRole('list', { name: lang === 'en' ? 'All containers on this host' : 'Alle containers op deze host' }));
    await page.getByLabel(lang === 'en' ? 'Search' : 'Zoeken', { exact: true }).fill(CTR);
    await hasCount(page.locator('.ctr-list > li'), 1);
    await visible(page.getByRole('heading', { name: CTR }));
    await hasText(page.locator('.ctr-summary'), lang === 'en' ? /^1 of the \d+ containers on this host\.$/ : /^1 van de \d+ containers op deze server\.$/);
    await page.getByLabel(lang === 'en' ? 'Show' : 'Tonen').selectOption('apps');
    await visible(
      page.getByText(lang === 'en' ? 'No container matches the search and the choice above.' : 'Geen container past bij de zoekterm en de keuze hierboven.'),
    );
    await page.getByLabel(lang === 'en' ? 'Show' : 'Tonen').selectOption('other');
    await hasCount(page.locator('.ctr-list > li'), 1);
    await shoot(page, `polish-containers-${lang}`);
    await page.context().close();
  }
});

test('the audit log names the source networks and translates the details', async () => {
  for (const [lang, source, detail] of [
    ['en', 'Networks', /subnet: 10\.251\.31\.0\/24 · driver: bridge/],
    ['nl', 'Netwerken', /subnet: 10\.251\.31\.0\/24 · driver: bridge/],
  ] as const) {
    const page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PW });
    await go(page, lang === 'en' ? 'Audit log' : 'Auditlog');
    const row = page.locator('tr').filter({ hasText: NET });
    await hasText(row.locator('.a-source'), source);
    await hasText(row.locator('.a-detail'), detail);
    // The account vera was added with the role viewer: the detail reads in the language, with the role's name.
    await visible(
      page
        .locator('tr')
        .filter({ hasText: 'vera' })
        .locator('.a-detail', { hasText: lang === 'en' ? /^role: viewer$/ : /^rol: kijker$/ }),
    );
    assert.ok(
      (
        await page
          .getByLabel(lang === 'en' ? 'Source' : 'Bron')
          .locator('option')
          .allTextContents()
      ).some((o) => o.startsWith(source)),
      'the source filter offers it by name',
    );
    await page.context().close();
  }
});

test('the admin menu is one line at 1280 px in en and nl and takes one line on a phone; the current entry stays in sight', async () => {
  for (const lang of ['en', 'nl'] as const) {
    const page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PW });
    const links = menu(page).getByRole('link');
    await hasCount(links, 12);
    const tops = new Set(await links.evaluateAll((as) => as.map((a) => Math.round(a.getBoundingClientRect().top))));
    assert.equal(tops.size, 1, `${lang}: every entry on one line`);
    const right = await links.last().evaluate((a) => a.getBoundingClientRect().right);
    assert.ok(right <= 1280, `${lang}: the last entry is in sight at 1280 px (${right})`);
    await page.setViewportSize({ width: 390, height: 844 });
    const header = await page.locator('.app-header').boundingBox();
    assert.ok(header && header.height < 110, `${lang}: the header takes ${header?.height} px of 844`);
    await go(page, lang === 'en' ? 'Diagnostics' : 'Diagnose');
    const current = menu(page).locator('[aria-current="page"]');
    await eventually(async () => {
      const box = await current.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the current entry is in sight: ${JSON.stringify(box)}`);
    });
    await shoot(page, `polish-menu-${lang}`);
    await page.context().close();
  }
});

test("a network's delete button stays inside its card, wide and on a phone", async () => {
  for (const lang of ['en', 'nl'] as const) {
    const page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PW });
    await go(page, lang === 'en' ? 'Networks' : 'Netwerken');
    const card = page.locator(`li.net[data-network="${NET}"]`);
    await visible(card);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      const del = card.getByRole('button', { name: lang === 'en' ? `Delete network ${NET}` : `Netwerk ${NET} verwijderen` });
      await del.click();
      for (const b of [del, ...(await card.locator('.net-confirm .btn').all())]) {
        const [c, x] = [await card.boundingBox(), await b.boundingBox()];
        assert.ok(c && x && x.x >= c.x && x.x + x.width <= c.x + c.width + 0.5, `${lang} ${width}: button inside the card: ${JSON.stringify([c, x])}`);
      }
      await shoot(page, `polish-networks-${lang}-${width}`);
      await del.click();
    }
    await page.context().close();
  }
  assert.deepEqual(problems, []);
});
