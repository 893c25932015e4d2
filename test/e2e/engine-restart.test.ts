// The engine restart on the Diagnostics screen, in English and Dutch. On the CI machine dockerd is not run by
// systemd, so what an admin sees after confirming is the refusal naming the host's PID 1 (read by the real helper
// container in the host's PID namespace); the engine keeps running.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { engineAnswers } from '../helpers/dockerd.ts';
import { requireEngine } from '../helpers/engine.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasText, isFocused, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

requireBuiltWeb();

const PASSWORD = 'correct-horse-battery';
const pid1 = readFileSync('/proc/1/comm', 'utf8').trim();
let server: TestServer;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  await requireEngine();
  assert.notEqual(pid1, 'systemd', 'this test expects the CI machine, whose dockerd is not under systemd');
  server = await startTestServer();
  const api = new ApiClient(server.url);
  await api.loginAs('admin', PASSWORD);
  assert.equal((await api.post('/api/wizard/complete')).status, 200);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function restartAt(lang: 'en' | 'nl', width: number, words: { title: string; button: string; yes: string }): Promise<Page> {
  const page = await logInAt(browser, problems, { url: server.url, lang, width, password: PASSWORD });
  // Logged in once the form is gone; only then a navigation cannot cut the login's request off.
  await page.getByLabel(lang === 'nl' ? 'Wachtwoord' : 'Password').waitFor({ state: 'detached', timeout: 10_000 });
  await page.goto(`${server.url}/diagnostics`);
  await visible(page.getByRole('heading', { name: words.title, level: 1 }));
  const card = page.locator('.engine-restart');
  await visible(card);
  await card.getByRole('button', { name: words.button }).click();
  // The question starts on Cancel: Enter never restarts the engine by accident.
  await isFocused(card.getByRole('button', { name: lang === 'nl' ? 'Annuleren' : 'Cancel' }));
  await card.getByRole('button', { name: words.yes }).click();
  return page;
}

test('an admin asks for an engine restart on Diagnostics and is told why this host cannot: PID 1 is not systemd', async () => {
  const page = await restartAt('en', 1280, { title: 'Diagnostics', button: 'Restart engine…', yes: 'Restart engine' });
  await hasText(
    page.locator('.engine-restart [role="alert"] .error-body'),
    `Kade cannot restart the engine here: it is not run by systemd on this host (PID 1 is '${pid1}'). Restart it on the host with the command your system uses.`,
  );
  await shoot(page, 'engine-restart-refused');
  await page.context().close();
  assert.equal(await engineAnswers(), true);
});

test('in Dutch, at phone width, the same refusal', async () => {
  const page = await restartAt('nl', 390, { title: 'Diagnose', button: 'Engine herstarten…', yes: 'Engine herstarten' });
  await hasText(
    page.locator('.engine-restart [role="alert"] .error-body'),
    new RegExp(`^Kade kan de engine hier niet herstarten: systemd draait hem niet op deze host \\(PID 1 is '${pid1}'\\)`),
  );
  await shoot(page, 'engine-restart-refused-nl');
  await page.context().close();
  assert.deepEqual(problems, []);
});
