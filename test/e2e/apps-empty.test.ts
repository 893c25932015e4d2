import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// An empty apps list says why (issue 11 item 6): no apps yet, with the way to the store, versus an
// apps folder Kade cannot read, naming the folder and the setting that fixes it.
requireBuiltWeb();

const PW = 'correct-horse-battery';
let server: TestServer;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  server = await startTestServer();
  const api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const TEXT = {
  en: { none: 'No apps installed yet', store: 'Open the store', settings: 'Open the folder settings' },
  nl: {
    user: 'Gebruikersnaam',
    pw: 'Wachtwoord',
    login: 'Inloggen',
    none: 'Nog geen apps geïnstalleerd',
    store: 'Naar de winkel',
    settings: 'Naar de mapinstellingen',
  },
};
const library = () => join(server.baseDir, 'stacks');

for (const [lang, width] of [
  ['en', 1280],
  ['nl', 390],
] as const) {
  test(`${lang} at ${width} px: no apps yet leads to the store; an unreadable apps folder is named with the setting to fix`, async () => {
    const page = await logInAt(browser, problems, { url: `${server.url}/apps`, lang, width, password: PW });
    await visible(page.getByText(TEXT[lang].none));
    await visible(page.getByRole('link', { name: TEXT[lang].store }));
    await shoot(page, `apps-empty-${lang}`);

    // The apps folder becomes a file: the list can no longer be read.
    renameSync(library(), `${library()}.moved`);
    writeFileSync(library(), 'not a folder');
    try {
      await page.reload();
      await visible(page.getByRole('alert').filter({ hasText: library() }));
      await visible(page.getByText(/LIBRARY_DIR/));
      assert.equal(await page.getByText(TEXT[lang].none).count(), 0, 'an unreadable folder is not shown as an empty one');
      await shoot(page, `apps-unreadable-${lang}`);
      await page.getByRole('link', { name: TEXT[lang].settings }).click();
      await page.waitForURL(/\/settings$/);
    } finally {
      rmSync(library(), { force: true });
      renameSync(`${library()}.moved`, library());
    }
    await page.context().close();
  });
}

test('the API answers an unreadable apps folder with a 503 problem naming it, not an empty list', async () => {
  const api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  assert.deepEqual((await api.get('/api/stacks')).body, []);
  renameSync(library(), `${library()}.moved`);
  try {
    const r = await api.get('/api/stacks');
    assert.equal(r.status, 503);
    assert.equal(r.body.code, 'library_unreadable');
    assert.equal(r.body.params.path, library());
  } finally {
    renameSync(`${library()}.moved`, library());
  }
});

test('no browser problems', () => assert.deepEqual(problems, []));
