import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, hasCount, hasText, isFocused, launchBrowser, openPage, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// The audit screen as an admin uses it: real logins make entries, the rest of the log is filled
// through the event bus so there is more than one page to walk through.
requireBuiltWeb();

const ADMIN = 'admin';
const PASSWORD = 'correct-horse-battery';
const APPS = 60;

let server: TestServer;
/** Entries once the browser has logged in too; read from the API, so other setup steps may add entries. */
let total = 0;
let browser: Browser;
let page: Page;
const problems: string[] = [];

function seedAppEvents(): void {
  for (let i = 1; i <= APPS; i++) {
    const target = `app-${String(i).padStart(2, '0')}`;
    server.kade.events.emit({
      type: i % 3 === 0 ? 'stack.stop' : 'stack.start',
      actor: { user: ADMIN, role: 'admin', ip: `192.168.1.${i}` },
      source: 'stacks',
      target,
      status: i % 10 === 0 ? 'failed' : 'ok',
    });
  }
}

before(async () => {
  server = await startTestServer();
  const api = new ApiClient(server.url);
  await api.loginAs(ADMIN, PASSWORD);
  await new ApiClient(server.url).loginAs(ADMIN, PASSWORD);
  // Without this, an admin is led into the setup wizard instead of the page asked for.
  assert.equal((await api.post('/api/wizard/complete')).status, 200);
  seedAppEvents();
  const wrong = await new ApiClient(server.url).post('/api/auth/login', { username: 'mallory', password: 'guessing-here' });
  assert.equal(wrong.status, 401);
  total = (await api.get('/api/audit')).body.total + 1;
  browser = await launchBrowser();
  page = await openPage(browser, problems, (m) => `console: ${m.text()} at ${JSON.stringify(m.location())}`);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const rows = () => page.locator('.audit-table tbody tr');
const range = () => page.locator('.audit-range');
const actionCells = () => page.locator('.audit-table tbody .a-action-label');

async function distinctActions(): Promise<string[]> {
  return [...new Set((await actionCells().allTextContents()).map((s) => s.trim()))].sort();
}

describe('audit screen', () => {
  test('an admin logs in and reaches the audit log from the menu', async () => {
    await page.goto(server.url);
    await page.getByLabel('User name').fill(ADMIN);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await visible(page.getByRole('heading', { name: 'Audit log', level: 1 }));
    await isFocused(page.getByRole('heading', { name: 'Audit log', level: 1 }));
    assert.ok(total > APPS + 3);
    await hasText(range(), `1–50 of ${total}`);
    await hasCount(rows(), 50);
    await visible(page.getByRole('columnheader', { name: 'IP address' }));
    await shoot(page, 'audit');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, 'audit-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('paging walks forward and back, and the address keeps the place', async () => {
    await page.getByRole('button', { name: 'Next' }).click();
    await hasText(range(), `51–${total} of ${total}`);
    await hasCount(rows(), total - 50);
    assert.match(page.url(), /offset=50/);
    await page.reload();
    await hasText(range(), `51–${total} of ${total}`);
    await page.getByRole('button', { name: 'Previous' }).click();
    await hasText(range(), `1–50 of ${total}`);
    assert.equal(await page.getByRole('button', { name: 'Previous' }).getAttribute('aria-disabled'), 'true');
  });

  test('filtering by action uses the facet counts and narrows the table', async () => {
    const action = page.getByLabel('Action', { exact: true });
    await action.selectOption({ label: 'Log in (3)' });
    await hasText(range(), '1–3 of 3');
    assert.deepEqual(await distinctActions(), ['Log in']);
    // One page: no paging buttons to trip over.
    await hasCount(page.getByRole('button', { name: 'Next' }), 0);
    await visible(page.locator('.a-badge-failed'));
    assert.match(page.url(), /action=login/);
    await shoot(page, 'audit-filtered');
    await action.selectOption({ label: 'All' });
    await hasText(range(), `1–50 of ${total}`);
  });

  test('free text finds the failed login of an unknown name, after a short pause', async () => {
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill('mallory');
    await hasText(range(), '1–1 of 1');
    const row = rows().first();
    await visible(row.getByText('not logged in'));
    await visible(row.getByText('Failed'));
    await visible(row.getByText('mallory'));
    await search.fill('app-1');
    // app-10 … app-19
    await hasText(range(), '1–10 of 10');
  });

  test('a filter that matches nothing says so and offers to clear the filters', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('zzz-nothing-here');
    await visible(page.getByText(`None of the ${total} entries match these filters.`, { exact: false }));
    await shoot(page, 'audit-empty-match');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await hasText(range(), `1–50 of ${total}`);
    assert.equal(await page.getByRole('searchbox', { name: 'Search' }).inputValue(), '');
  });

  test('the controls are reachable by keyboard and Enter searches at once', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).focus();
    await page.keyboard.type('192.168.1.7');
    await page.keyboard.press('Enter');
    // 192.168.1.7 and 192.168.1.70 do not exist beyond 60; so .7 only.
    await hasText(range(), '1–1 of 1');
    await page.keyboard.press('Tab');
    await isFocused(page.getByLabel('Action', { exact: true }));
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await hasText(range(), `1–50 of ${total}`);
  });

  test('in Dutch the action labels, sources and controls are translated', async () => {
    await page.getByLabel('Language').selectOption('nl');
    await visible(page.getByRole('heading', { name: 'Auditlog', level: 1 }));
    await page.getByLabel('Actie', { exact: true }).selectOption({ label: 'Inloggen (3)' });
    await hasText(range(), '1–3 van 3');
    assert.deepEqual(await distinctActions(), ['Inloggen']);
    await visible(rows().getByText('Mislukt'));
    await page.getByLabel('Actie', { exact: true }).selectOption('');
    await eventually(async () => assert.deepEqual(await distinctActions(), ['Inloggen', 'Starten', 'Stoppen']));
    await shoot(page, 'audit-nl');
    await page.getByLabel('Taal').selectOption('en');
    await eventually(async () => assert.deepEqual(await distinctActions(), ['Log in', 'Start', 'Stop']));
  });

  test('an empty log says that nothing has been logged yet', async () => {
    const empty = { entries: [], total: 0, unfiltered_total: 0, limit: 50, offset: 0, facets: { source: [], action: [], status: [], user: [] } };
    await page.route('**/api/audit?*', (route) => route.fulfill({ json: empty }));
    await page.getByRole('button', { name: 'Refresh' }).click();
    await visible(page.getByText('Nothing has been logged yet.', { exact: false }));
    await page.unroute('**/api/audit?*');
  });

  test('no script errors along the way', () => {
    assert.deepEqual(problems, []);
  });
});
