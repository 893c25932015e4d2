import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  addBrokenStack,
  addStoppedStack,
  hasAttr,
  hasCount,
  hasText,
  isFocused,
  launchBrowser,
  openPage,
  removeStackContainers,
  requireBuiltWeb,
  shoot,
  visible,
} from './web-helpers.ts';

// The browser tier tests what users get: the built interface served by the real server.
requireBuiltWeb();

const ADMIN = 'admin';
const PASSWORD = 'correct-horse-battery';
const DEMO = 'e2e-web-demo';
const BROKEN = 'e2e-web-broken';

let server: TestServer;
let browser: Browser;
let page: Page;
const problems: string[] = [];

before(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  // Refused requests here: 401 on a wrong password.
  page = await openPage(browser, problems);
});

after(async () => {
  await browser?.close();
  await removeStackContainers(DEMO);
  await server?.close();
});

describe('web interface', () => {
  test('first visit shows the setup screen and checks the repeat', async () => {
    await page.goto(server.url);
    await visible(page.getByRole('heading', { name: 'Create the first account' }));
    await isFocused(page.getByLabel('User name'));
    await shoot(page, 'setup');
    await page.getByLabel('User name').fill(ADMIN);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Repeat password').fill(`${PASSWORD}x`);
    await page.getByRole('button', { name: 'Create account' }).click();
    // Said at the repeat field itself (issue #24 item 18).
    await hasText(page.locator('.field:has([name="repeat"]) > .field-error'), 'The two passwords are not the same.');
    await hasAttr(page.getByLabel('Repeat password'), 'aria-invalid', 'true');
  });

  test('creating the first account logs in and shows the empty apps list', async () => {
    await page.getByLabel('Repeat password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    // The first admin is led into the setup wizard (test/e2e/wizard.test.ts walks it); skipping it leads to the apps.
    await page.getByRole('button', { name: 'Skip setup' }).click();
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    await visible(page.getByText('No apps installed yet — install one from the store.'));
    // The user name, then the role badge.
    await hasText(page.getByTestId('current-user'), /^(Logged in as\s*)?admin\s*admin$/);
    await visible(page.getByText(/Status checked at/));
    await shoot(page, 'apps-empty');
  });

  test('the language switch translates, and the choice survives a reload', async () => {
    await page.getByLabel('Language').selectOption('nl');
    await visible(page.getByText('Nog geen apps geïnstalleerd — installeer er een uit de winkel.'));
    await visible(page.getByRole('button', { name: 'Uitloggen' }));
    assert.equal(await page.locator('html').getAttribute('lang'), 'nl');
    await page.reload();
    await visible(page.getByRole('button', { name: 'Uitloggen' }));
    await shoot(page, 'apps-empty-nl');
    await page.getByLabel('Taal').selectOption('en');
    await visible(page.getByText('No apps installed yet — install one from the store.'));
    await visible(page.getByRole('button', { name: 'Log out' }));
  });

  test('logout, a wrong password is refused with a clear message, then login works', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await visible(page.getByRole('heading', { name: 'Log in' }));
    await page.getByLabel('User name').fill(ADMIN);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await hasText(page.getByRole('alert'), 'Wrong user name or password.');
    await page.getByLabel('Language').selectOption('nl');
    await hasText(page.getByRole('alert'), 'Gebruikersnaam of wachtwoord is onjuist.');
    await shoot(page, 'login-error-nl');
    await page.getByLabel('Taal').selectOption('en');
    await shoot(page, 'login-error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    await visible(page.getByText('No apps installed yet — install one from the store.'));
  });

  test('apps appear by the automatic refresh, with status, link and actions', async () => {
    addStoppedStack(server.baseDir, DEMO);
    addBrokenStack(server.baseDir, BROKEN);
    // Written by hand, so run only once an admin accepted its files (the compose gate).
    const api = new ApiClient(server.url);
    await api.loginAs(ADMIN, PASSWORD);
    await api.acceptFiles(DEMO);
    const demo = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: DEMO }) });
    const broken = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: BROKEN }) });
    // No reload: the 5 s refresh must bring them in.
    await visible(demo, 12_000);
    await visible(demo.getByText(/^(Stopped|Unknown)$/));
    await hasAttr(demo.getByRole('link', { name: `Open ${DEMO} in a new tab` }), 'href', /:8088\/$/);
    await visible(demo.getByRole('button', { name: `Start ${DEMO}`, exact: true }));
    // Its source repo is not (or no longer) in the catalogue: the list says so.
    await visible(demo.getByText('Template repo removed'));
    await visible(broken.getByText('This folder has no compose file.'));
    await hasCount(broken.getByRole('button'), 0);
    await visible(broken.locator('.dot-missing_compose'));
    await shoot(page, 'apps-list');
  });

  test('start shows the running job and then the server’s reason for the failure', async () => {
    const demo = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: DEMO }) });
    await demo.getByRole('button', { name: `Start ${DEMO}`, exact: true }).click();
    // The image does not exist and may not be pulled, so the job fails; the user must see both phases.
    await hasText(demo.getByRole('status'), `Starting ${DEMO}…`);
    await visible(demo.getByText(/^Failed: /).or(demo.getByRole('alert')), 30_000);
    await shoot(page, 'apps-job-failed');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, 'apps-job-failed-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await demo.getByRole('button', { name: 'Dismiss message' }).click();
    // The row keeps saying that the app's last job failed, with the way on, until a job succeeds.
    await hasCount(demo.getByRole('alert'), 1);
    await visible(demo.getByRole('alert').getByText(/^The last action on this app \(start\) failed: /));
    await visible(demo.getByRole('button', { name: `Try to start ${DEMO} again`, exact: true }));
  });

  test('the interface is drivable by keyboard: skip link, then the first control', async () => {
    await page.reload();
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    await page.keyboard.press('Tab');
    await isFocused(page.getByRole('link', { name: 'Skip to content' }));
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await isFocused(page.getByRole('button', { name: 'Refresh' }));
  });

  test('too many wrong passwords show the retry message', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('User name').fill(ADMIN);
    await page.getByLabel('Password').fill('still-wrong');
    let status = 0;
    for (let i = 0; i < 8 && status !== 429; i++) {
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/auth/login'));
      await page.getByRole('button', { name: 'Log in' }).click();
      status = (await answer).status();
    }
    assert.equal(status, 429);
    await hasText(page.getByRole('alert'), /^Too many attempts\. Try again in \d+ seconds\.$/);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: 'test-results/screenshots/login-rate-limited-390.png', fullPage: true });
  });

  test('no script errors or CSP violations along the way', () => {
    assert.deepEqual(problems, []);
  });
});
