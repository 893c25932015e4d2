import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasCount, hasText, launchBrowser, openPage, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// The install review names the powers an app gets over the host; the settings screen offers only settings that
// take effect (ALLOW_PRIVILEGED_APPS, ALLOWED_HOST_DIRS, UPDATE_CHECK_ENABLED) and names the ones not available yet.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const BUSYBOX = '    image: kade-test/busybox:1\n    init: true\n    command: ["sleep", "3600"]\n    labels: { kade.test: "1" }\n';

let root: string;
let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let page: Page;
const problems: string[] = [];

function writeApp(dir: string, id: string, name: string, service: string): void {
  mkdirSync(join(dir, id), { recursive: true });
  writeFileSync(
    join(dir, id, 'template.json'),
    JSON.stringify({ name, description: { en: 'x', nl: 'x' }, version: '1.0.0', metadata: { categories: ['developer'] }, fields: [] }),
  );
  writeFileSync(join(dir, id, 'docker-compose.yml'), `services:\n  app:\n${BUSYBOX}${service}`);
}

async function logIn(name: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto(server.url);
  await page.getByLabel(/^(User name|Gebruikersnaam)$/).fill(name);
  await page.getByLabel(/^(Password|Wachtwoord)$/).fill(PW);
  await page.getByRole('button', { name: /^(Log in|Inloggen)$/ }).click();
  await visible(page.getByRole('heading', { name: /^Apps$/, level: 1 }));
}

/** The install form of an app, moved on to its review step. */
async function review(app: string, next: RegExp = /^Next$/): Promise<void> {
  await page.goto(`${server.url}/store/policy/${app}/install`);
  await visible(page.getByRole('heading', { level: 1 }));
  await page.getByRole('button', { name: next }).click();
  await visible(page.locator('.install-review'));
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'kade-e2e-policy-'));
  const apps = join(root, 'repo', 'apps');
  writeApp(apps, 'hostnet', 'Host network', '    network_mode: host\n    cap_add: [NET_ADMIN]\n');
  writeApp(apps, 'plain', 'Plain', '');
  git = await startGitServer();
  await git.addRepo('policy', join(root, 'repo'), { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  await api.addSyncedRepo('policy', git.url('policy'));
  assert.equal((await api.post('/api/users', { name: 'oper', password: PW, role: 'operator' })).status, 201);
  browser = await launchBrowser();
  page = await openPage(browser, problems);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await git?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('install review: powers over the host', () => {
  test('an operator sees each power and that only an admin can install it', async () => {
    await logIn('oper');
    await review('hostnet');
    const warning = page.getByRole('alert').filter({ hasText: 'This app gets powers over the host' });
    await visible(warning);
    await visible(warning.getByText('The host network or another container’s network (host): it sees every port of the host (app)'));
    await visible(warning.getByText('Extra kernel capability NET_ADMIN (app)'));
    await visible(warning.getByText(/Only an admin can install this app \(setting ALLOW_PRIVILEGED_APPS\)/));
    await shoot(page, 'install-powers');
  });

  test('in Dutch the same warning reads in Dutch', async () => {
    await page.getByLabel('Language').selectOption('nl');
    const warning = page.getByRole('alert').filter({ hasText: 'Deze app krijgt macht over de host' });
    await visible(warning);
    await visible(warning.getByText('Extra kernelrecht NET_ADMIN (app)'));
    await visible(warning.getByText(/Alleen een beheerder kan deze app installeren/));
    await shoot(page, 'install-powers-nl');
    await page.getByLabel('Taal').selectOption('en');
  });

  test('an app without powers shows no warning', async () => {
    await review('plain');
    await hasCount(page.locator('.powers-warning'), 0);
    await hasCount(page.locator('.powers-checking'), 0);
  });
});

describe('settings that take effect', () => {
  test('the admin finds the host policy, the update check and the update channel', async () => {
    await logIn('admin');
    await page.goto(`${server.url}/settings`);
    const host = page.getByRole('region', { name: 'Apps and the host' });
    await visible(host);
    assert.equal(await host.getByLabel('Who may install apps with powers over the host (ALLOW_PRIVILEGED_APPS)').inputValue(), 'admins');
    assert.equal(await page.getByLabel(/UPDATE_CHECK_ENABLED/).isChecked(), true);
    assert.equal(await page.getByLabel('Update channel (UPDATE_CHANNEL)').inputValue(), 'stable');
    await hasCount(page.getByRole('heading', { name: 'Not available yet', level: 2 }), 0);
    // Backups exist: their settings have inputs.
    const backups = page.getByRole('region', { name: 'Backups and disk space' });
    await hasCount(backups.locator('[name="DISK_WARN_PCT"], [name="BACKUP_OFFSITE_DIR"]'), 2);
    assert.equal(await backups.getByLabel('Compression of new backups (BACKUP_COMPRESSION)').inputValue(), 'gzip');
    await shoot(page, 'settings-effective');
  });

  test('allowing operators and turning the update check off are saved and change what an operator may install', async () => {
    await page.getByLabel('Who may install apps with powers over the host (ALLOW_PRIVILEGED_APPS)').selectOption('everyone');
    await page.getByLabel(/UPDATE_CHECK_ENABLED/).uncheck();
    await page.getByLabel('Compression of new backups (BACKUP_COMPRESSION)').selectOption('zstd');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await hasText(page.locator('#settings-result'), /^Settings saved\./);
    const saved = (await api.get<{ ALLOW_PRIVILEGED_APPS: string; UPDATE_CHECK_ENABLED: boolean; BACKUP_COMPRESSION: string }>('/api/settings')).body;
    assert.deepEqual([saved.ALLOW_PRIVILEGED_APPS, saved.UPDATE_CHECK_ENABLED, saved.BACKUP_COMPRESSION], ['everyone', false, 'zstd']);

    await page.getByLabel('Language').selectOption('nl');
    await visible(page.getByRole('region', { name: 'Apps en de host' }));
    await visible(page.getByRole('region', { name: 'Kade bijwerken' }));
    await visible(page.getByRole('region', { name: 'Meldingen' }));
    await visible(page.getByRole('region', { name: 'Back-ups en schijfruimte' }));
    assert.equal(await page.getByLabel('Compressie van nieuwe back-ups (BACKUP_COMPRESSION)').inputValue(), 'zstd');
    await shoot(page, 'settings-effective-nl');
    await page.getByLabel('Taal').selectOption('en');

    await logIn('oper');
    await review('hostnet');
    await visible(page.getByRole('alert').filter({ hasText: 'This app gets powers over the host' }));
    await hasCount(page.getByText(/Only an admin can install this app/), 0);
  });

  test('no console errors beyond the expected', () => {
    assert.deepEqual(problems, []);
  });
});
