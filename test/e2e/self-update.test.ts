// The "Update Kade" panel of the settings screen, in English and Dutch, for a Kade that cannot update
// itself (started from a checkout, as this test server is): the running version, the reason, and an
// "Update now" that is there but disabled and points at the reason. The update channel is chosen in the
// Updates section and saved with the settings; the panel then names the beta channel.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasAttr, hasText, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

requireBuiltWeb();

const PASSWORD = 'correct-horse-battery';
const VERSION = readFileSync('VERSION', 'utf8').trim();
const root = mkdtempSync(join(tmpdir(), 'kade-self-update-web-'));
let server: TestServer;
let api: ApiClient;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  server = await startTestServer({ stateDir: join(root, 'state'), kade: { ownContainerId: null } });
  api = new ApiClient(server.url);
  await api.loginAs('admin', PASSWORD);
  assert.equal((await api.post('/api/wizard/complete')).status, 200);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

async function openSettings(lang: 'en' | 'nl', nav: string): Promise<Page> {
  const page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PASSWORD });
  await page
    .getByRole('navigation', { name: lang === 'nl' ? 'Hoofdmenu' : 'Main' })
    .getByRole('link', { name: nav, exact: true })
    .click();
  return page;
}

test('the panel shows the running version and why Kade cannot update itself; the channel is saved with the settings', async () => {
  const page = await openSettings('en', 'Settings');
  const panel = page.getByRole('region', { name: 'Update Kade' });
  await visible(panel);
  await hasText(panel.locator('.self-update-facts dd').first(), VERSION);
  await hasText(panel.locator('#self-update-reason'), /Kade does not run in a container\. Update it with install\.sh --update or git pull\./);
  const update = panel.getByRole('button', { name: 'Update now' });
  await visible(update);
  await hasAttr(update, 'aria-disabled', 'true');
  await hasAttr(update, 'aria-describedby', 'self-update-reason');
  // A click does nothing: no question, no job.
  await update.click({ force: true });
  assert.equal(await panel.locator('.confirm').count(), 0);
  // Nothing to roll back to, and no registry to ask while updating is impossible.
  assert.equal(await panel.getByRole('button', { name: /^Roll back/ }).count(), 0);
  assert.equal(await panel.getByRole('button', { name: 'Check now' }).count(), 0);

  await page.getByLabel('Update channel (UPDATE_CHANNEL)').selectOption('beta');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await hasText(page.locator('#settings-result'), /^Settings saved\./);
  assert.equal((await api.get('/api/settings')).body.UPDATE_CHANNEL, 'beta');
  await hasText(panel.locator('.self-update-facts dt').nth(1), 'Newest (Beta: releases and pre-releases)');
  await shoot(page, 'self-update-en');
  await page.context().close();
});

test('in Dutch: Kade bijwerken, with the reason in Dutch', async () => {
  const page = await openSettings('nl', 'Instellingen');
  const panel = page.getByRole('region', { name: 'Kade bijwerken' });
  await visible(panel);
  await hasText(panel.locator('#self-update-reason'), /Kade draait niet in een container/);
  await hasAttr(panel.getByRole('button', { name: 'Nu bijwerken' }), 'aria-disabled', 'true');
  await shoot(page, 'self-update-nl');
  await page.context().close();
  assert.deepEqual(problems, []);
});
