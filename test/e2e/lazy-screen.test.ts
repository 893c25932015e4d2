import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// A screen's code is fetched when the screen is first shown. A fetch that fails once is tried again; one that keeps
// failing says so, with a reload button, instead of leaving "Loading…" or a bare "HTTP ?" on the page.
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

/**
 * A logged-in page at /settings whose settings-screen chunk fails: the first fetch only (`once`), or every fetch
 * until `unblock()`.
 */
async function settingsFailing(mode: 'once' | 'until unblocked'): Promise<{ page: Page; fetched: () => number; unblock: () => void }> {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
  let n = 0;
  let blocked = true;
  await context.route(/\/assets\/settings-screen-[^/]*\.js$/, (route) => {
    n += 1;
    const fail = mode === 'once' ? n === 1 : blocked;
    return fail ? route.abort('connectionreset') : route.continue();
  });
  const page = await logInAt(browser, problems, { url: `${server.url}/settings`, lang: 'en', width: 1280, password: PW, context });
  return {
    page,
    fetched: () => n,
    unblock: () => {
      blocked = false;
    },
  };
}

test('a screen whose code fails to load once is shown after the second try', async () => {
  const { page, fetched } = await settingsFailing('once');
  await visible(page.getByLabel('App data (DATA_DIR)', { exact: true }));
  assert.ok(fetched() >= 2, `fetched ${fetched()} times: the failure and the retry`);
  await page.context().close();
});

test('a screen whose code keeps failing says so and offers a reload that then works', async () => {
  const { page, unblock } = await settingsFailing('until unblocked');
  const alert = page.getByRole('alert').filter({ hasText: 'This page could not be loaded' });
  await visible(alert);
  assert.match(await alert.innerText(), /after an update of Kade the page in the browser is out of date/);
  await shoot(page, 'screen-load-failed');
  unblock();
  await alert.getByRole('button', { name: 'Reload' }).click();
  await visible(page.getByLabel('App data (DATA_DIR)', { exact: true }));
  await page.context().close();
});

test('the final failure is logged as a script error; nothing else went wrong', () => {
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(problems[0] ?? '', /the code of a screen could not be loaded/);
});
