import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addInstalledStack, writeBulkRepo } from './store-helpers.ts';
import { eventually, hasAttr, hasCount, hasText, launchBrowser, openPage, requireBuiltWeb, shoot, visible, watchPage } from './web-helpers.ts';

// The store and the repos screen against a real git server: from an empty store to filtering 92 apps.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const BULK = 70;
const EXAMPLES = 22;

let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let page: Page;
let bulkDir: string;
const problems: string[] = [];

// Refused requests here (failed resources, expected): the invalid URL this file tests.
const watch = (p: Page) => watchPage(p, problems);

async function logIn(p: Page, name: string): Promise<void> {
  await p.goto(server.url);
  await p.getByLabel('User name').fill(name);
  await p.getByLabel('Password').fill(PW);
  await p.getByRole('button', { name: 'Log in' }).click();
  await visible(p.getByRole('heading', { name: 'Apps', level: 1 }));
}

const menu = (p: Page, name: string) => p.getByRole('navigation', { name: /^(Main|Hoofdmenu)$/ }).getByRole('link', { name, exact: true });
const cards = () => page.locator('.store-grid > .store-card');
const card = (name: string) => cards().filter({ has: page.getByRole('heading', { name, exact: true }) });
const repoRow = (name: string) => page.locator('.repo').filter({ has: page.getByRole('heading', { name: new RegExp(`^${name}\\b`) }) });
const options = async (select: Locator) => (await select.locator('option').allTextContents()).map((s) => s.trim());

before(async () => {
  git = await startGitServer();
  // The examples folder holds apps/ and VERSION, like a template repo of its own.
  await git.addRepo('examples', 'examples', { branch: 'main' });
  bulkDir = mkdtempSync(join(tmpdir(), 'kade-e2e-bulk-'));
  writeBulkRepo(bulkDir, BULK);
  await git.addRepo('bulk', bulkDir, { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  // An admin is led into the setup wizard until it is done; that is not what this file tests.
  await api.post('/api/wizard/complete');
  assert.equal((await api.post('/api/users', { name: 'vera', password: PW, role: 'viewer' })).status, 201);
  // An app installed from the examples, so its card carries the installed badge.
  addInstalledStack(server.baseDir, 'whoami-test', 'examples', 'whoami');
  await api.acceptFiles('whoami-test');
  browser = await launchBrowser();
  page = await openPage(browser, problems);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await git?.close();
  if (bulkDir) rmSync(bulkDir, { recursive: true, force: true });
});

describe('store and template repositories', () => {
  test('a viewer sees an empty store that says why, and the repos without actions', async () => {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    const viewer = await context.newPage();
    watch(viewer);
    await logIn(viewer, 'vera');
    await menu(viewer, 'Store').click();
    await visible(viewer.getByRole('heading', { name: 'App store', level: 1 }));
    await visible(viewer.getByText(/no template repository has been added yet/));
    await visible(viewer.getByText('Ask an administrator to add one.'));
    await hasCount(viewer.getByRole('link', { name: 'Add a repository' }), 0);
    await menu(viewer, 'Repositories').click();
    await visible(viewer.getByRole('heading', { name: 'Template repositories', level: 1 }));
    await hasCount(viewer.getByRole('form', { name: 'Add a repository' }), 0);
    await context.close();
  });

  test('the empty store tells an admin that no repository exists and leads to the repos screen', async () => {
    await logIn(page, 'admin');
    await menu(page, 'Store').click();
    await visible(page.getByRole('heading', { name: 'App store', level: 1 }));
    await visible(page.getByText(/The store is empty because no template repository has been added yet/));
    await shoot(page, 'store-empty');
    await page.getByRole('link', { name: 'Add a repository' }).click();
    await visible(page.getByRole('heading', { name: 'Template repositories', level: 1 }));
    assert.equal(new URL(page.url()).pathname, '/repos');
    await visible(page.getByText('No template repository has been added yet, so the store is empty.'));
  });

  test('adding a repository through the form shows the sync job until it is done', async () => {
    const form = page.getByRole('form', { name: 'Add a repository' });
    await form.getByLabel('Name', { exact: true }).fill('Examples');
    await form.getByLabel('Address', { exact: true }).fill(git.url('examples'));
    assert.equal(await form.getByLabel('Branch', { exact: true }).inputValue(), 'main');
    await form.getByLabel('Folder with the apps', { exact: true }).fill('apps');
    await shoot(page, 'repos-add');
    await form.getByRole('button', { name: 'Add repository' }).click();
    await hasText(form.getByRole('status'), 'Examples has been added; Kade fetches it now.');
    const row = repoRow('Examples');
    await hasText(row.locator('.job-progress-state'), 'Done', 30_000);
    await visible(row.getByRole('log').filter({ hasText: `${EXAMPLES} apps` }));
    // The list is read again after the job: the cache status is filled in.
    await visible(row.locator('code[title]'));
    await hasText(
      row
        .locator('dd')
        .filter({ hasText: /VERSION|v0\.1\.00/ })
        .first(),
      /v0\.1\.00/,
    );
    await hasCount(row.getByText('outdated', { exact: true }), 0);
    assert.equal(await form.getByLabel('Name', { exact: true }).inputValue(), '', 'the add form is emptied after a success');
    await shoot(page, 'repos-synced');
  });

  test('the store shows the example apps with category colours and the installed badge', async () => {
    await menu(page, 'Store').click();
    await hasCount(cards(), EXAMPLES);
    await hasText(page.locator('.store-count'), `${EXAMPLES} of ${EXAMPLES} apps shown`);
    const whoami = card('Whoami');
    await visible(whoami.getByText('Installed as whoami-test'));
    // A remote icon would break the CSP: a letter avatar in the colour of the first category instead.
    await hasCount(whoami.locator('img'), 0);
    await hasText(whoami.locator('.store-letter'), 'W');
    const developer = (await api.get<{ id: string; color: string }[]>('/api/categories')).body.find((c) => c.id === 'developer');
    const tint = await whoami.locator('.store-letter').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(tint, hexToRgb(developer?.color ?? ''));
    await visible(card('Home Assistant').locator('.store-chip', { hasText: 'Smart home' }));
    await visible(card('Home Assistant').locator('.store-tags li', { hasText: 'zigbee' }));
    // Only categories that hold an app are offered: the examples use no "Other".
    const cats = await options(page.getByLabel('Category', { exact: true }));
    assert.ok(cats.includes('Smart home (3)'), cats.join(', '));
    assert.ok(!cats.some((c) => c.startsWith('Other')), cats.join(', '));
    await page.getByLabel('Category', { exact: true }).selectOption({ label: 'Smart home (3)' });
    await hasCount(cards(), 3);
    await hasText(page.locator('.store-count'), `3 of 3 matching apps shown (${EXAMPLES} in the store)`);
    await shoot(page, 'store-category');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await hasCount(cards(), EXAMPLES);
  });

  test('a second repository with a token: more than one page of cards, and an outdated badge', async () => {
    await menu(page, 'Repositories').click();
    const form = page.getByRole('form', { name: 'Add a repository' });
    await form.getByLabel('Name', { exact: true }).fill('Bulk');
    await form.getByLabel('Address', { exact: true }).fill(git.url('bulk'));
    await form.getByLabel('Folder with the apps', { exact: true }).fill('apps');
    await form.getByLabel('Token (optional)').fill('not-needed-by-this-server');
    await form.getByRole('button', { name: 'Add repository' }).click();
    const row = repoRow('Bulk');
    await hasText(row.locator('.job-progress-state'), 'Done', 30_000);
    await visible(row.getByText('token set', { exact: true }));
    await visible(row.getByText('outdated', { exact: true }));
    await visible(row.getByText(/^Outdated: this repository was written for Kade v0\.0\.50, older than this Kade \(v/));
    assert.ok(!(await page.content()).includes('not-needed-by-this-server'), 'the token is never shown');
    await shoot(page, 'repos-two');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, 'repos-two-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('60 cards at once, "show more", and the limit resets when the search changes', async () => {
    const total = EXAMPLES + BULK;
    await menu(page, 'Store').click();
    await hasCount(cards(), 60);
    await hasText(page.locator('.store-count'), `60 of ${total} apps shown`);
    await page.getByRole('button', { name: `Show ${total - 60} more` }).click();
    await hasCount(cards(), total);
    await hasCount(page.getByRole('button', { name: /^Show \d+ more$/ }), 0);
    // The search applies 200 ms after the last key stroke, not at once.
    const search = page.getByLabel('Search', { exact: true });
    const started = Date.now();
    await search.fill('zigbee');
    assert.equal(await cards().count(), total, 'the list does not change while typing');
    await hasCount(cards(), 3);
    assert.ok(Date.now() - started >= 190, `search applied after ${Date.now() - started} ms`);
    await visible(card('Home Assistant'));
    await visible(card('Zigbee2MQTT'));
    await visible(card('Mosquitto'));
    await shoot(page, 'store-search');
    await search.fill('');
    // A new search term starts again at one page of cards.
    await hasCount(cards(), 60);
    // Search also looks at labels.
    await search.fill('batch-3');
    await hasCount(cards(), BULK / 10);
    await search.fill('');
    await hasCount(cards(), 60);
  });

  test('the label filter offers the 40 most used labels; a chosen one stays visible', async () => {
    const apps = (await api.get<{ name: string; tags: string[] }[]>('/api/store/apps')).body;
    const counts = new Map<string, number>();
    for (const a of apps) for (const tag of new Set(a.tags)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    const ranked = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    assert.ok(ranked.length > 40, `only ${ranked.length} labels`);
    const [rare, rareCount] = ranked.at(-1) ?? ['', 0];
    const label = page.getByLabel('Label', { exact: true });
    const shown = await options(label);
    assert.equal(shown.length, 41, 'All plus 40 labels');
    assert.ok(shown.includes(`bulk (${BULK})`));
    assert.ok(!shown.includes(`${rare} (${rareCount})`), `${rare} is outside the top 40`);
    await visible(page.getByText('Without a search term: the 40 most used labels.'));
    // With a search term, the labels of the matching apps are offered; pick the rare one there.
    const owner = apps.find((a) => a.tags.includes(rare));
    await page.getByLabel('Search', { exact: true }).fill(owner?.name ?? '');
    await visible(page.getByText('Labels of the apps that match the search.'));
    await label.selectOption(rare);
    await hasCount(cards(), 1);
    await page.getByLabel('Search', { exact: true }).fill('');
    await visible(page.getByText('Without a search term: the 40 most used labels.'));
    await hasCount(cards(), rareCount);
    assert.ok((await options(label)).includes(`${rare} (${rareCount})`), 'the chosen label stays in the list');
    assert.equal(await label.inputValue(), rare);
    await shoot(page, 'store-label');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await hasCount(cards(), 60);
  });

  test('no app matches: the store says so and clears the filters', async () => {
    await page.getByLabel('Search', { exact: true }).fill('nothing matches this text');
    await visible(page.getByText(`None of the ${EXAMPLES + BULK} apps match these filters.`));
    await hasText(page.locator('.store-count'), `No matching apps (${EXAMPLES + BULK} in the store)`);
    await hasCount(cards(), 0);
    await shoot(page, 'store-no-match');
    await page.locator('.store-empty').getByRole('button', { name: 'Clear filters' }).click();
    await hasCount(cards(), 60);
    assert.equal(await page.getByLabel('Search', { exact: true }).inputValue(), '');
  });

  test('editing: the token hint, and a refused address shows the translated reason, never success', async () => {
    await menu(page, 'Repositories').click();
    const row = repoRow('Bulk');
    await row.getByRole('button', { name: 'Edit Bulk' }).click();
    const form = row.getByRole('form', { name: 'Edit Bulk' });
    await visible(form.getByText('A token is set. Leave this empty to keep it; a new value replaces it.'));
    assert.equal(await form.getByLabel('Token (optional)').inputValue(), '');
    await visible(form.getByText('The id stays bulk: installed apps refer to it.'));
    await form.getByLabel('Address', { exact: true }).fill('file:///etc/passwd');
    await form.getByRole('button', { name: 'Save and fetch' }).click();
    await hasText(form.getByRole('alert').locator('p').first(), 'This git address is not accepted.');
    await hasAttr(form.getByLabel('Address', { exact: true }), 'aria-invalid', 'true');
    await hasText(page.locator('.repos-status'), '');
    await shoot(page, 'repos-refused');
    await page.getByLabel('Language').selectOption('nl');
    // The form is named by its heading, which is Dutch now.
    const nlForm = row.getByRole('form', { name: 'Bulk bewerken' });
    await hasText(nlForm.getByRole('alert').locator('p').first(), 'Dit git-adres wordt niet geaccepteerd.');
    await visible(nlForm.getByText('Er is een token ingesteld. Laat dit leeg om het te houden; een nieuwe waarde vervangt het.'));
    await shoot(page, 'repos-refused-nl');
    await page.getByLabel('Taal').selectOption('en');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await hasCount(row.getByRole('form'), 0);
  });

  test('a valid edit keeps the id and fetches again; delete asks first', async () => {
    const row = repoRow('Examples');
    await row.getByRole('button', { name: 'Edit Examples' }).click();
    const form = row.getByRole('form', { name: 'Edit Examples' });
    await visible(form.getByText('Only for a private repository. Stored write-only; never shown again.'));
    await form.getByLabel('Name', { exact: true }).fill('Example apps');
    await form.getByRole('button', { name: 'Save and fetch' }).click();
    await hasText(page.locator('.repos-status'), 'The changes to Example apps have been saved; Kade fetches it again.');
    const renamed = repoRow('Example apps');
    await hasText(renamed.locator('.job-progress-state'), 'Done', 30_000);
    await hasText(renamed.locator('.repo-id'), 'examples');
    const bulk = repoRow('Bulk');
    await bulk.getByRole('button', { name: 'Delete Bulk' }).click();
    await visible(bulk.getByText(/^Delete the repository Bulk\?/));
    await shoot(page, 'repos-delete-confirm');
    await bulk.getByRole('button', { name: 'Yes, delete' }).click();
    await hasText(page.locator('.repos-status'), 'The repository Bulk has been deleted.');
    await hasCount(page.locator('.repo'), 1);
    const left = (await api.get<{ id: string }[]>('/api/repos')).body.map((r) => r.id);
    assert.deepEqual(left, ['examples']);
  });

  test('Dutch: the store and the repos screen are translated', async () => {
    await page.getByLabel('Language').selectOption('nl');
    await menu(page, 'Winkel').click();
    await visible(page.getByRole('heading', { name: 'App-winkel', level: 1 }));
    await hasText(page.locator('.store-count'), `${EXAMPLES} van ${EXAMPLES} apps getoond`);
    assert.ok((await options(page.getByLabel('Categorie', { exact: true }))).includes('Slim huis (3)'));
    await visible(card('Home Assistant').locator('.store-chip', { hasText: 'Slim huis' }));
    await visible(card('Whoami').getByText('Geïnstalleerd als whoami-test'));
    await visible(card('Gitea').getByText(/^Lichte git-hosting/));
    await shoot(page, 'store-nl');
    await page.getByLabel('Zoeken', { exact: true }).fill('geen enkele app heet zo');
    await visible(page.getByText(`Geen van de ${EXAMPLES} apps past bij deze filters.`));
    await page.locator('.store-empty').getByRole('button', { name: 'Filters wissen' }).click();
    await menu(page, 'Repositories').click();
    await visible(page.getByRole('heading', { name: 'Sjabloonrepositories', level: 1 }));
    await visible(page.getByRole('button', { name: 'Example apps opnieuw ophalen' }));
    await visible(page.getByRole('form', { name: 'Een repository toevoegen' }));
    await shoot(page, 'repos-nl');
    await page.getByLabel('Taal').selectOption('en');
    await visible(page.getByRole('heading', { name: 'Template repositories', level: 1 }));
  });

  test('sync from the list shows the job and its log', async () => {
    const row = repoRow('Example apps');
    await row.getByRole('button', { name: 'Fetch Example apps again' }).click();
    await hasText(row.locator('.job-progress-state'), 'Done', 30_000);
    await visible(row.getByRole('log').filter({ hasText: /commit [0-9a-f]{12}/ }));
    await row.getByRole('button', { name: 'Hide log' }).click();
    await hasCount(row.getByRole('log'), 0);
  });

  test('dark theme and keyboard focus', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, 'repos-dark');
    await menu(page, 'Store').click();
    await hasCount(cards(), EXAMPLES);
    await page.getByLabel('Search', { exact: true }).focus();
    await page.keyboard.press('Tab');
    await eventually(async () => assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('id')?.endsWith('-cat')), true));
    await shoot(page, 'store-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('each card says the format of the store it comes from: Kade’s own, or another store’s (CasaOS), in en and nl', async () => {
    await git.addRepo('casa', join(import.meta.dirname, '../fixtures/import/casaos/v2only'), { branch: 'main' });
    const { job } = await api.addRepo({ id: 'casa', name: 'Casa', url: git.url('casa'), branch: 'main', subdirectory: 'Apps' });
    assert.equal(job.state, 'succeeded', job.log.join('\n'));
    await menu(page, 'Store').click();
    // The store screen was open already: read the apps again.
    await page.reload();
    await hasCount(cards(), EXAMPLES + 1);
    await hasText(card('Proxy Casa').locator('.store-format'), 'CasaOS format');
    await hasText(card('Whoami').locator('.store-format'), 'Kade format');
    await hasAttr(card('Proxy Casa').locator('.store-format'), 'title', 'The format of the store this app comes from');
    await page.getByLabel('Search', { exact: true }).fill('proxy casa');
    await hasCount(cards(), 1);
    await shoot(page, 'store-format');
    await page.getByLabel('Language').selectOption('nl');
    await hasText(card('Proxy Casa').locator('.store-format'), 'CasaOS-formaat');
    await shoot(page, 'store-format-nl');
    await page.getByLabel('Zoeken', { exact: true }).fill('');
    await hasText(card('Whoami').locator('.store-format'), 'Kade-formaat');
    await page.getByLabel('Taal').selectOption('en');
    assert.equal((await api.del('/api/repos/casa')).status, 204);
  });

  test('an operator may fetch a repository again but not change it', async () => {
    assert.equal((await api.post('/api/users', { name: 'otto', password: PW, role: 'operator' })).status, 201);
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    const operator = await context.newPage();
    watch(operator);
    await logIn(operator, 'otto');
    await menu(operator, 'Repositories').click();
    const row = operator.locator('.repo').filter({ has: operator.getByRole('heading', { name: /^Example apps\b/ }) });
    await visible(row.getByRole('button', { name: 'Fetch Example apps again' }));
    await hasCount(row.getByRole('button', { name: /^(Edit|Delete) / }), 0);
    await hasCount(operator.getByRole('form', { name: 'Add a repository' }), 0);
    await context.close();
  });

  test('no script errors or CSP violations along the way', () => {
    assert.deepEqual(problems, []);
  });
});

function hexToRgb(hex: string): string {
  const n = (i: number) => Number.parseInt(hex.slice(1 + i * 2, 3 + i * 2), 16);
  return `rgb(${n(0)}, ${n(1)}, ${n(2)})`;
}
