import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addStoppedStack, hasCount, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// The compose gate as a user meets it (issue 23): an app folder made or edited by hand is not run until an admin
// accepts its files; the app view says why and offers the admin that step, which the server judges first.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const APP = 'e2e-files-demo';
let server: TestServer;
let api: ApiClient;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  assert.equal((await api.post('/api/users', { name: 'oper', password: PW, role: 'operator' })).status, 201);
  addStoppedStack(server.baseDir, APP);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

describe('files Kade runs an app from', () => {
  test('an operator sees why the app is not run, without the accept step', async () => {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByLabel('User name').fill('oper');
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Log in' }).click();
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    await page.goto(`${server.url}/apps/${APP}`);
    await visible(page.getByText(`Kade does not run the files of ${APP}: they were never accepted.`));
    await hasCount(page.getByRole('button', { name: 'Accept the files as they are now' }), 0);
    await context.close();
  });

  test('an admin accepts the files as they are now; a later edit by hand is refused again, naming the file', async () => {
    const page: Page = await logInAt(browser, problems, { url: server.url, lang: 'en', width: 1280, password: PW });
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    await page.goto(`${server.url}/apps/${APP}`);
    const box = page.getByRole('alert').filter({ hasText: 'never accepted' });
    await visible(box);
    await shoot(page, 'app-files-refused');
    await box.getByRole('button', { name: 'Accept the files as they are now' }).click();
    await visible(page.getByText(`Accept the files of ${APP} as they are now?`));
    await shoot(page, 'app-files-confirm');
    await page.getByRole('button', { name: 'Accept the files', exact: true }).click();
    await hasCount(page.getByRole('alert').filter({ hasText: 'never accepted' }), 0);
    const audit = await api.get<{ entries: { action: string; target: string }[] }>(`/api/audit?q=${APP}`);
    assert.ok(audit.body.entries.some((e) => e.action === 'files_accept' && e.target === APP));
    // What a container or a hand edit does to the compose file: refused again, the file named.
    writeFileSync(
      join(server.baseDir, 'stacks', APP, 'docker-compose.yml'),
      'services:\n  web:\n    image: kade-e2e-absent-image:never\n    privileged: true\n',
    );
    await page.reload();
    await visible(page.getByText(/docker-compose\.yml is not the file Kade wrote/), 20_000);
    await shoot(page, 'app-files-changed');
    assert.deepEqual(problems, []);
  });
});
