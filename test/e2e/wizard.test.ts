import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasAttr, hasCount, hasText, isFocused, launchBrowser, openPage, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// The first run as an admin meets it: the wizard against a real git server, then the settings screen.
requireBuiltWeb();

const ADMIN = 'admin';
const PASSWORD = 'correct-horse-battery';

let git: GitServer;
let server: TestServer;
let browser: Browser;
let page: Page;
let root: string;
let outside: string;
const problems: string[] = [];

before(async () => {
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  root = mkdtempSync(join(tmpdir(), 'kade-e2e-wizard-'));
  outside = mkdtempSync(join(tmpdir(), 'kade-e2e-outside-'));
  server = await startTestServer({ stateDir: join(root, 'state'), baseDir: join(root, 'base') });
  browser = await launchBrowser();
  // Refused requests here: the path refusals this file tests.
  page = await openPage(browser, problems);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await git?.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const heading = (name: string) => page.getByRole('heading', { name, level: 1 });
const stepHeading = (name: string) => page.getByRole('heading', { name, level: 2 });

describe('setup wizard', () => {
  test('the first admin is led into the wizard after creating the account', async () => {
    await page.goto(server.url);
    await page.getByLabel('User name').fill(ADMIN);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Repeat password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await visible(heading('Set up Kade'));
    assert.equal(new URL(page.url()).pathname, '/wizard');
    await isFocused(heading('Set up Kade'));
    await visible(stepHeading('Folders'));
    await hasText(page.locator('[aria-current="step"]'), /Folders/);
  });

  test('paths: a live check while typing; a folder outside the mount is refused with the .env fix line', async () => {
    const field = page.getByLabel('Base folder (BASE_DIR)');
    assert.equal(await field.inputValue(), server.baseDir);
    await visible(page.getByText('Kade can use this folder.'));
    await field.fill(join(outside, 'kade'));
    await visible(page.getByText(/lies outside the folder mounted into Kade/));
    await visible(page.locator('.path-status code', { hasText: `BASE_DIR=${join(outside, 'kade')}` }));
    await page.getByRole('button', { name: 'Next' }).click();
    const alert = page.getByRole('alert');
    await hasText(alert.locator('strong'), 'The settings were not saved.');
    await visible(alert.locator('code', { hasText: `BASE_DIR=${join(outside, 'kade')}` }));
    await shoot(page, 'wizard-paths-refused');
    await field.fill(join(server.baseDir, 'kade'));
    await visible(page.getByText('Kade will create this folder.'));
    await visible(page.getByText(`Apps go to ${join(server.baseDir, 'kade', 'stacks')}`, { exact: false }));
    await shoot(page, 'wizard-paths');
    await page.getByRole('button', { name: 'Next' }).click();
    await visible(stepHeading('Template repo'));
  });

  test('repo and first sync: the job shows progress and its log, then done leads to the apps', async () => {
    await page.getByLabel('Repository address').fill(git.url('basic'));
    assert.equal(await page.getByLabel('Branch').inputValue(), 'main');
    await page.getByLabel('Folder with the apps').fill('apps');
    await shoot(page, 'wizard-repo');
    await page.getByRole('button', { name: 'Next' }).click();
    await visible(stepHeading('First sync'));
    await visible(page.getByRole('status').filter({ hasText: 'All template repos were fetched.' }), 60_000);
    await visible(page.getByRole('log').filter({ hasText: /2 apps/ }));
    await hasCount(page.locator('progress'), 1);
    await shoot(page, 'wizard-sync');
    await page.getByRole('button', { name: 'Next' }).click();
    await visible(stepHeading('Kade is ready'));
    await shoot(page, 'wizard-done');
    await page.getByRole('button', { name: 'Go to the apps' }).click();
    await visible(heading('Apps'));
    const api = new ApiClient(server.url);
    await api.loginAs(ADMIN, PASSWORD);
    assert.equal((await api.get('/api/settings')).body.WIZARD_DONE, true);
    assert.equal((await api.get('/api/settings')).body.LIBRARY_DIR, join(server.baseDir, 'kade', 'stacks'));
  });

  test('a reload after the wizard stays on the apps', async () => {
    await page.reload();
    await visible(heading('Apps'));
    await page.waitForTimeout(300);
    assert.equal(new URL(page.url()).pathname, '/apps');
  });
});

describe('settings screen', () => {
  test('is in the menu for admins, grouped, with secrets as set / not set', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await visible(heading('Settings'));
    for (const group of [
      'Folders',
      'Time zone',
      'Apps and the host',
      'Backups and disk space',
      'Updates',
      'Notifications',
      'Registry account',
      'Update Kade',
    ]) {
      await visible(page.getByRole('heading', { name: group, level: 2 }));
    }
    // Every setting's feature exists now: the update channel is an input of the Updates section.
    await hasCount(page.getByRole('heading', { name: 'Not available yet', level: 2 }), 0);
    await hasCount(page.getByRole('region', { name: 'Updates' }).locator('[name="UPDATE_CHANNEL"]'), 1);
    // Notifications exist: their stand-in secrets are write-only inputs, the channels are on their own screen.
    const notify = page.getByRole('region', { name: 'Notifications' });
    await hasCount(notify.locator('[name="NOTIFY_TOKEN"], [name="NOTIFY_EMAIL_PASSWORD"]'), 2);
    await hasAttr(notify.getByRole('link', { name: 'Open the Notifications screen' }), 'href', '/notifications');
    // Backups exist: their folder sits with the other folders.
    await hasCount(page.getByRole('region', { name: 'Folders' }).locator('[name="BACKUP_DIR"]'), 1);
    // Shared networks exist: their names are settings with inputs.
    await visible(page.getByRole('heading', { name: 'Networks', level: 2 }));
    await hasCount(page.locator('[name="SHARED_NETWORK"]'), 1);
    await hasText(page.getByRole('group', { name: /REGISTRY_TOKEN/ }).locator('.pill'), 'not set');
    await shoot(page, 'settings');
  });

  test('a refused save shows the server’s reason and the .env line, never a success', async () => {
    const lib = page.getByLabel('Apps (LIBRARY_DIR)');
    await lib.fill(join(outside, 'stacks'));
    await page.getByRole('button', { name: 'Save settings' }).click();
    const alert = page.locator('#settings-result');
    await hasText(alert.locator('strong'), 'The settings were not saved.');
    await visible(alert.getByText(`LIBRARY_DIR: Kade cannot use the folder ${join(outside, 'stacks')}.`));
    await visible(alert.locator('code', { hasText: `BASE_DIR=${outside}` }));
    await visible(alert.getByText(/Details: LIBRARY_DIR .* lies outside the folder mounted into Kade/));
    await hasCount(page.getByText('Settings saved.'), 0);
    await hasText(page.locator('[aria-invalid="true"]').first().locator('xpath=..').locator('label'), 'Apps (LIBRARY_DIR)');
    await page.locator('.save-bar').scrollIntoViewIfNeeded();
    await shoot(page, 'settings-refused');
  });

  test('a value the shared schema refuses is not sent, and says which', async () => {
    await page.getByLabel('Apps (LIBRARY_DIR)').fill(join(server.baseDir, 'kade', 'stacks'));
    const zone = page.getByLabel('Time zone (TIMEZONE)');
    const before = await zone.inputValue();
    await zone.fill('Mars/Olympus_Mons');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await hasText(page.locator('#settings-result'), 'Not saved: some values are not valid (TIMEZONE).');
    await zone.fill(before);
  });

  test('a good save stores a secret write-only and says so', async () => {
    await page
      .getByRole('group', { name: /REGISTRY_TOKEN/ })
      .getByLabel('New value')
      .fill('ntfy-e2e-secret');
    await page.getByRole('button', { name: 'Save settings' }).click();
    // The wizard moved BASE_DIR, so the answer also says when the folders take effect.
    await hasText(page.locator('#settings-result'), 'Settings saved. Changed folders take effect after a move (see Folders) or when Kade restarts.');
    await hasText(page.getByRole('group', { name: /REGISTRY_TOKEN/ }).locator('.pill'), 'set');
    assert.equal(
      await page
        .getByRole('group', { name: /REGISTRY_TOKEN/ })
        .getByLabel('New value')
        .inputValue(),
      '',
    );
    assert.ok(!(await page.content()).includes('ntfy-e2e-secret'));
    await shoot(page, 'settings-saved');
  });

  test('in Dutch the refusal reads in Dutch, with the same fix line', async () => {
    await page.getByLabel('Language').selectOption('nl');
    await visible(heading('Instellingen'));
    await page.getByLabel('Apps (LIBRARY_DIR)').fill(join(outside, 'stacks'));
    await page.getByRole('button', { name: 'Instellingen opslaan' }).click();
    const alert = page.locator('#settings-result');
    await hasText(alert.locator('strong'), 'De instellingen zijn niet opgeslagen.');
    await visible(alert.getByText('Dit ligt buiten de map die in Kade is gekoppeld', { exact: false }));
    await visible(alert.locator('code', { hasText: `BASE_DIR=${outside}` }));
    await page.locator('.save-bar').scrollIntoViewIfNeeded();
    await shoot(page, 'settings-refused-nl');
    await page.getByLabel('Apps (LIBRARY_DIR)').fill(join(server.baseDir, 'kade', 'stacks'));
  });

  test('the wizard runs again from the settings, in Dutch, and skips the repo step when one exists', async () => {
    await page.getByRole('button', { name: 'Installatiewizard opnieuw doorlopen' }).click();
    await visible(heading('Kade instellen'));
    await visible(page.getByText('Kade kan deze map gebruiken.'));
    await shoot(page, 'wizard-paths-nl');
    await page.getByRole('button', { name: 'Volgende' }).click();
    await visible(stepHeading('Sjabloonrepo'));
    await shoot(page, 'wizard-repo-nl');
    await page.getByRole('button', { name: 'Stap overslaan' }).click();
    await visible(page.getByRole('status').filter({ hasText: 'Alle sjabloonrepo’s zijn opgehaald.' }), 60_000);
    await shoot(page, 'wizard-sync-nl');
    await page.getByRole('button', { name: 'Volgende' }).click();
    await visible(stepHeading('Kade is klaar'));
    await shoot(page, 'wizard-done-nl');
    await page.getByRole('button', { name: 'Naar de apps' }).click();
    await visible(heading('Apps'));
    await page.getByLabel('Taal').selectOption('en');
  });

  test('non-admins never see the wizard or the settings', async () => {
    const api = new ApiClient(server.url);
    await api.loginAs(ADMIN, PASSWORD);
    assert.equal((await api.post('/api/wizard/reset')).status, 200);
    assert.equal((await api.post('/api/users', { name: 'olga', password: PASSWORD, role: 'operator' })).status, 201);
    const ctx = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    const p = await ctx.newPage();
    await p.goto(server.url);
    await p.getByLabel('User name').fill('olga');
    await p.getByLabel('Password').fill(PASSWORD);
    await p.getByRole('button', { name: 'Log in' }).click();
    await visible(p.getByRole('heading', { name: 'Apps', level: 1 }));
    await p.waitForTimeout(500);
    assert.equal(new URL(p.url()).pathname, '/');
    await hasCount(p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }), 0);
    await p.goto(`${server.url}/wizard`);
    await visible(p.getByRole('heading', { name: 'Set up Kade', level: 1 }));
    await visible(p.getByText('This page is for admins only.'));
    await ctx.close();
    await api.post('/api/wizard/complete');
  });

  test('no script errors along the way', () => {
    assert.deepEqual(problems, []);
  });
});
