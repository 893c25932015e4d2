import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasCount, hasText, isFocused, launchBrowser, openPage, requireBuiltWeb, shoot, visible, watchPage } from './web-helpers.ts';

// The users screen and the own-password form, as an admin and as a viewer sees them, in both languages.
requireBuiltWeb();

const PW = 'correct-horse-battery';

let server: TestServer;
let api: ApiClient;
let browser: Browser;
let page: Page;
const problems: string[] = [];

async function logIn(p: Page, name: string, password: string): Promise<void> {
  await p.goto(server.url);
  await p.getByLabel('User name').fill(name);
  await p.getByLabel('Password').fill(password);
  await p.getByRole('button', { name: 'Log in' }).click();
  await visible(p.getByRole('heading', { name: 'Apps', level: 1 }));
}

const row = (name: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: new RegExp(`^${name}`) }) });
const roleOf = async (name: string) => ((await api.get('/api/users')).body as { name: string; role: string }[]).find((u) => u.name === name)?.role;

before(async () => {
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  // An admin is led into the setup wizard until it is done; that is not what this file tests.
  await api.post('/api/wizard/complete');
  browser = await launchBrowser();
  // Refused requests here: 409 and 403.
  page = await openPage(browser, problems);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

describe('users screen', () => {
  test('admins find Users in the menu, with their own account marked', async () => {
    await logIn(page, 'admin', PW);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    await visible(page.getByRole('heading', { name: 'Users', level: 1 }));
    await visible(row('admin').getByText('you', { exact: true }));
    await visible(row('admin').getByText(/^Last login /));
  });

  test('adding a user checks the password, then shows the new row; a taken name is refused', async () => {
    const add = page.getByRole('form', { name: 'Add a user' });
    await add.getByLabel('User name').fill('olga');
    await add.getByLabel('Password').fill('short');
    await add.getByLabel('Role').selectOption('operator');
    await add.getByRole('button', { name: 'Add user' }).click();
    // Said at the field after a try, and gone once the password is long enough (issue #24 item 18).
    await hasText(add.locator('.field:has([name="password"]) > .field-error'), 'The password needs at least 8 characters.');
    await add.getByLabel('Password').fill(PW);
    await hasCount(add.locator('.field-error'), 0);
    await add.getByRole('button', { name: 'Add user' }).click();
    await hasText(add.getByRole('status'), 'olga has been added as operator.');
    await visible(row('olga').getByText('Never logged in'));
    assert.equal(await roleOf('olga'), 'operator');

    await add.getByLabel('User name').fill('olga');
    await add.getByLabel('Password').fill(PW);
    // A taken name is said at the field while typing, and the form does not send it.
    await hasText(add.locator('.field:has([name="name"]) > .field-error'), 'An account named “olga” exists already; choose another name.');
    await add.getByRole('button', { name: 'Add user' }).click();
    await hasCount(add.getByRole('status').locator('.notice'), 0);
    await shoot(page, 'users');
  });

  test('a role change is saved explicitly and confirmed only after the server accepted it', async () => {
    await page.getByLabel('Role of olga').selectOption('viewer');
    await row('olga').getByRole('button', { name: 'Save role' }).click();
    await hasText(page.locator('.users-status'), 'olga is now viewer.');
    assert.equal(await roleOf('olga'), 'viewer');
    await hasCount(row('olga').getByRole('button', { name: 'Save role' }), 0);
  });

  test('the last admin refusal is shown, and nothing claims success', async () => {
    await page.getByLabel('Role of admin').selectOption('operator');
    await row('admin').getByRole('button', { name: 'Save role' }).click();
    await hasText(row('admin').getByRole('alert'), /^This is the last administrator; there must always be one\./);
    await hasCount(page.locator('.users-status .notice'), 0);
    assert.equal(await page.getByLabel('Role of admin').inputValue(), 'admin', 'the select shows the role the account still has');
    assert.equal(await roleOf('admin'), 'admin');

    await row('admin').getByRole('button', { name: 'Delete admin' }).click();
    await isFocused(row('admin').getByRole('button', { name: 'Cancel' }));
    await visible(row('admin').getByText('Delete your own account admin?', { exact: false }));
    await shoot(page, 'users-delete-confirm');
    await row('admin').getByRole('button', { name: 'Yes, delete' }).click();
    await hasText(row('admin').getByRole('alert'), /^This is the last administrator/);
    await shoot(page, 'users-refused');
    assert.equal(await roleOf('admin'), 'admin');
    await row('admin').getByRole('button', { name: 'Dismiss message' }).click();
  });

  test('resetting a password ends that user’s sessions; the new password works', async () => {
    const olga = new ApiClient(server.url);
    await olga.loginAs('olga', PW);
    await row('olga').getByRole('button', { name: 'Reset the password of olga' }).click();
    await isFocused(page.getByLabel('New password for olga'));
    await page.getByLabel('New password for olga').fill('short');
    await row('olga').getByRole('button', { name: 'Set password' }).click();
    await hasText(row('olga').locator('.field-error'), 'The password needs at least 8 characters.');
    await page.getByLabel('New password for olga').fill('olga-second-password');
    await shoot(page, 'users-reset');
    await row('olga').getByRole('button', { name: 'Set password' }).click();
    await hasText(page.locator('.users-status'), 'The password of olga has been changed; the account is logged out everywhere.');
    assert.equal((await olga.get('/api/auth/status')).body.user, null);
    await new ApiClient(server.url).loginAs('olga', 'olga-second-password');
  });

  test('in Dutch: the screen, a refusal and deleting a user', async () => {
    await page.getByLabel('Language').selectOption('nl');
    await visible(page.getByRole('heading', { name: 'Gebruikers', level: 1 }));
    await visible(page.getByRole('form', { name: 'Gebruiker toevoegen' }));
    await page.getByLabel('Rol van admin').selectOption('viewer');
    await row('admin').getByRole('button', { name: 'Rol opslaan' }).click();
    await hasText(row('admin').getByRole('alert'), /^Dit is de laatste beheerder; er moet er altijd één zijn\./);
    await shoot(page, 'users-nl');
    await row('admin').getByRole('button', { name: 'Melding sluiten' }).click();

    await row('olga').getByRole('button', { name: 'olga verwijderen' }).click();
    await row('olga').getByRole('button', { name: 'Ja, verwijderen' }).click();
    await hasText(page.locator('.users-status'), 'Het account olga is verwijderd.');
    await hasCount(row('olga'), 0);
    assert.equal(await roleOf('olga'), undefined);
    await page.getByLabel('Taal').selectOption('en');
  });

  test('everyone changes their own password from the account page reached by the user name', async () => {
    await page.getByRole('link', { name: 'admin' }).click();
    await visible(page.getByRole('heading', { name: 'My account', level: 1 }));
    const form = page.getByRole('form', { name: 'Change my password' });
    await form.getByLabel('Current password').fill('not-my-password');
    await form.getByLabel('New password', { exact: true }).fill('admin-second-password');
    await form.getByLabel('Repeat new password').fill('admin-second-password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await hasText(form.locator('.field:has([name="current_password"]) > .field-error'), 'The current password is wrong.');
    await shoot(page, 'account-refused');
    await form.getByLabel('Current password').fill(PW);
    await form.getByRole('button', { name: 'Change password' }).click();
    await hasText(form.getByRole('status'), 'Your password has been changed. Your other sessions have been logged out; this one stays.');
    await shoot(page, 'account');
    // The API client's session was another one of admin's: it has ended.
    assert.equal((await api.get('/api/auth/status')).body.user, null);
    await api.loginAs('admin', 'admin-second-password');
    await page.getByLabel('Language').selectOption('nl');
    await visible(page.getByRole('heading', { name: 'Mijn account', level: 1 }));
    await shoot(page, 'account-nl');
    await page.getByLabel('Taal').selectOption('en');
  });

  test('a viewer sees no Users menu, cannot open the screen, and may change their own password', async () => {
    assert.equal((await api.post('/api/users', { name: 'vera', password: PW, role: 'viewer' })).status, 201);
    const own = await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 844 } });
    try {
      const p = await own.newPage();
      watchPage(p, problems);
      await logIn(p, 'vera', PW);
      await hasCount(p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }), 0);
      await p.goto(`${server.url}/users`);
      // The page exists: it says which role it needs (issue 24 item 21), never "Page not found".
      await visible(p.getByRole('heading', { name: 'Users', level: 1 }));
      await visible(p.getByText('This page is for admins only.'));
      await p.getByRole('link', { name: 'vera' }).click();
      const form = p.getByRole('form', { name: 'Change my password' });
      await form.getByLabel('Current password').fill(PW);
      await form.getByLabel('New password', { exact: true }).fill('vera-second-password');
      await form.getByLabel('Repeat new password').fill('vera-second-password');
      await form.getByRole('button', { name: 'Change password' }).click();
      await hasText(form.getByRole('status'), /^Your password has been changed/);
      await p.screenshot({ path: 'test-results/screenshots/account-viewer-390.png', fullPage: true });
      assert.equal(await roleOf('vera'), 'viewer');
    } finally {
      await own.close();
    }
  });

  test('no script errors along the way', () => {
    assert.deepEqual(problems, []);
  });
});
