import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { freePort } from '../engine/contract-helpers.ts';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, hasAttr, hasCount, hasText, isFocused, shoot, visible } from './web-helpers.ts';

// From a store card to a running app: the install form rendered from the template of the basic
// fixture's `hello`, the server's refusals, and the job's log until the app runs.
if (!existsSync('dist/web/index.html')) {
  throw new Error('dist/web is not built: run `npm run build` before the browser tests');
}

const PW = 'correct-horse-battery';
const STACK = `kadetest-inst-${randomBytes(4).toString('hex')}`;
const LAUNCH = {
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
};

let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let page: Page;
let installed = false;
let generated = '';
const problems: string[] = [];

const menu = (name: string) => page.getByRole('navigation', { name: /^(Main|Hoofdmenu)$/ }).getByRole('link', { name, exact: true });
const stepHeading = () => page.locator('.install-form h2');
const field = (id: string) => page.locator(`.install-form [name="${id}"]`);

before(async () => {
  await requireEngine();
  mkdirSync('test-results/screenshots', { recursive: true });
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  // The examples hold groups, a toggle, advanced fields and a connect field; only their forms are opened.
  await git.addRepo('examples', 'examples', { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  // An admin is led into the setup wizard until it is done; that is not what this file tests.
  await api.post('/api/wizard/complete');
  await api.addSyncedRepo('Basic', git.url('basic'));
  await api.addSyncedRepo('Examples', git.url('examples'));
  browser = await chromium.launch(LAUNCH);
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // Refusals (the required field, a taken name) and a port check this server may not have are logged as failed resources.
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(`console: ${m.text()}`));
});

after(async () => {
  try {
    if (installed) {
      await api.removeApp(STACK);
    }
  } finally {
    await browser?.close();
    await server?.close();
    await git?.close();
    await cleanupLabelled();
  }
});

describe('install from the store', () => {
  test('the Hello card leads to the form with the name and the port pre-filled', async () => {
    await page.goto(server.url);
    await page.getByLabel('User name').fill('admin');
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Log in' }).click();
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    await menu('Store').click();
    await page.getByRole('link', { name: 'Install Hello' }).click();
    await visible(page.getByRole('heading', { name: 'Install Hello', level: 1 }));
    assert.match(new URL(page.url()).pathname, /^\/store\/[^/]+\/hello\/install$/);
    assert.equal(await page.getByLabel('Name of this installation').inputValue(), 'hello');
    assert.equal(await page.getByLabel('Web port', { exact: true }).inputValue(), '18080');
    // Whatever this server can say about the port, it says something: free, in use, assumed, or no check.
    await hasText(page.locator('.port-check'), /^(Port 18080 is|This Kade cannot check ports)/);
    // The login password is typed by a person: empty, with a generate button; no advanced switch for this app.
    assert.equal(await field('admin_password').inputValue(), '');
    assert.equal(await page.getByRole('switch').count(), 0);
    await shoot(page, 'install-step1');
  });

  test('generate fills a 32-character secret; show and hide', async () => {
    const secret = field('admin_password');
    assert.equal(await secret.getAttribute('type'), 'password');
    await page.getByRole('button', { name: 'Generate Admin password' }).click();
    await eventually(async () => assert.match(await secret.inputValue(), /^[A-Za-z0-9_-]{32}$/));
    generated = await secret.inputValue();
    await page.getByRole('button', { name: 'Show Admin password' }).click();
    await hasAttr(field('admin_password'), 'type', 'text');
    await page.getByRole('button', { name: 'Hide Admin password' }).click();
    await hasAttr(field('admin_password'), 'type', 'password');
  });

  test('minus and plus change the port; an invalid name is flagged while typing', async () => {
    const port = page.getByLabel('Web port', { exact: true });
    await page.getByRole('button', { name: 'Web port: one higher' }).click();
    assert.equal(await port.inputValue(), '18081');
    await page.getByRole('button', { name: 'Web port: one lower' }).click();
    assert.equal(await port.inputValue(), '18080');
    const name = page.getByLabel('Name of this installation');
    await name.fill('My App');
    await visible(page.getByText('Use lower-case letters, digits, _ and -, starting with a letter or digit (at most 63).'));
    await hasAttr(name, 'aria-invalid', 'true');
    await name.fill(STACK);
    await hasAttr(name, 'aria-invalid', '');
  });

  test('an empty required field is named, marked and focused', async () => {
    await page.getByRole('button', { name: 'Next' }).click();
    await hasText(page.locator('.install-form [role="alert"]').first(), 'Fill in the required fields: Message.');
    const message = page.getByLabel('Message', { exact: true });
    await hasAttr(message, 'aria-invalid', 'true');
    await isFocused(message);
    await visible(page.getByText('This field is required.'));
    await shoot(page, 'install-required');
    await message.fill('Hello from the install test');
    await hasAttr(message, 'aria-invalid', '');
    // The summary goes with the last missing field.
    await eventually(async () => assert.equal(await page.locator('.install-form [role="alert"]').count(), 0));
  });

  test('labels follow the language, the values stay', async () => {
    await page.getByLabel('Language').selectOption('nl');
    await visible(page.getByRole('heading', { name: 'Hello installeren', level: 1 }));
    await visible(page.getByLabel('Webpoort', { exact: true }));
    assert.equal(await page.getByLabel('Bericht', { exact: true }).inputValue(), 'Hello from the install test');
    await visible(page.getByRole('button', { name: 'Beheerderswachtwoord genereren' }));
    await shoot(page, 'install-nl');
    await page.getByLabel('Taal').selectOption('en');
    await visible(page.getByRole('heading', { name: 'Install Hello', level: 1 }));
  });

  test('the review lists the settings and hides the secret', async () => {
    await page.getByLabel('Web port', { exact: true }).fill(String(await freePort()));
    await page.getByRole('button', { name: 'Next' }).click();
    await hasText(stepHeading(), 'Step 2 of 2: Review');
    await isFocused(stepHeading());
    const review = page.locator('.install-review');
    await visible(review.getByText(STACK, { exact: true }));
    await visible(review.getByText('Hello from the install test'));
    await visible(review.getByText('(set, hidden)'));
    await shoot(page, 'install-review');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, 'install-review-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('install shows the job log until done, then the way to the running app', async () => {
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    installed = true;
    await visible(page.getByRole('heading', { name: `Installing ${STACK}`, level: 2 }));
    await hasText(page.locator('.job-progress-state'), 'Done', 120_000);
    await visible(page.getByRole('log').filter({ hasText: `as '${STACK}'` }));
    await visible(page.getByText(`${STACK} is installed and running.`));
    await visible(page.getByRole('link', { name: /^Open http:\/\// }));
    // The generated secret is masked in the install log.
    assert.ok(!((await page.getByRole('log').textContent()) ?? '').includes(generated), 'the secret is not in the log');
    await shoot(page, 'install-done');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, 'install-done-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('link', { name: 'Go to the apps' }).click();
    const row = page.locator('.stack').filter({ has: page.getByRole('heading', { name: STACK, exact: true }) });
    await hasText(row.locator('.stack-status'), /Running/i, 30_000);
    await shoot(page, 'install-apps');
    // The app's own log, read through the API; the hello app's web server writes nothing.
    await row.getByRole('button', { name: `Logs of ${STACK}` }).click();
    await hasText(row.getByRole('log', { name: `Log of ${STACK}` }), 'The log is empty.');
    await shoot(page, 'install-apps-logs');
  });

  test('a taken name is refused before submit, on the first step', async () => {
    await menu('Store').click();
    await page.getByRole('link', { name: 'Install Hello' }).click();
    // The form suggests a free name next to the installed one; typing the taken one warns at once.
    assert.equal(await page.getByLabel('Name of this installation').inputValue(), 'hello');
    await page.getByLabel('Name of this installation').fill(STACK);
    await visible(page.getByText(`An app named “${STACK}” is installed already; choose another name.`));
    await page.getByLabel('Message', { exact: true }).fill('second');
    await page.getByRole('button', { name: 'Next' }).click();
    await hasText(stepHeading(), 'Step 1 of 2: Name and settings');
    const name = page.getByLabel('Name of this installation');
    await hasAttr(name, 'aria-invalid', 'true');
    await isFocused(name);
    await visible(page.locator('.install-name .field-error').filter({ hasText: `An app named “${STACK}” is installed already; choose another name.` }));
    await shoot(page, 'install-name-taken');
  });

  test('groups get a step each; a toggle hides its required fields; advanced settings behind one switch', async () => {
    await menu('Store').click();
    await page.getByRole('link', { name: 'Install Gitea' }).click();
    await visible(page.getByRole('heading', { name: 'Install Gitea', level: 1 }));
    const advanced = page.getByRole('switch', { name: 'Show advanced settings (3)' });
    assert.equal(await advanced.isChecked(), false);
    await hasCount(page.getByLabel('Db password', { exact: false }), 0);
    await advanced.check();
    await visible(page.locator('.install-form [name="db_password"]'));
    // A database password nobody types starts with a random value; appdata_dir with DATA_DIR.
    assert.match(await page.locator('.install-form [name="db_password"]').inputValue(), /^[A-Za-z0-9_-]{32}$/);
    assert.notEqual(await page.locator('.install-form [name="appdata_dir"]').inputValue(), '');
    await shoot(page, 'install-advanced');
    await advanced.uncheck();
    await page.getByRole('button', { name: 'Next' }).click();
    await hasText(stepHeading(), /^Step 2 of 3: /);
    const toggle = page.locator('.install-step-head').getByRole('switch');
    assert.equal(await toggle.isChecked(), false);
    await visible(page.getByText('Switched off: these settings are not used and need not be filled in.'));
    await shoot(page, 'install-group-off');
    await toggle.check();
    await page.getByRole('button', { name: 'Next' }).click();
    await hasText(page.locator('.install-form [role="alert"]').first(), /^Fill in the required fields: /);
    await shoot(page, 'install-group-required');
    // Switched off again, the group's required fields no longer hold the form back.
    await toggle.uncheck();
    await page.getByRole('button', { name: 'Next' }).click();
    await hasText(stepHeading(), /^Step 3 of 3: Review/);
  });

  test('a connect field offers the installed instances, or says none is installed', async () => {
    await menu('Store').click();
    await page.getByRole('link', { name: 'Install Zigbee2MQTT' }).click();
    await visible(page.getByRole('heading', { name: 'Install Zigbee2MQTT', level: 1 }));
    const required = page.locator('.install-form [name="port"]');
    await required.fill(String(await freePort()));
    await page.locator('.install-form [name="serial_device"]').fill('/dev/ttyUSB0');
    const adapter = page.locator('.install-form select[name="adapter"]');
    if ((await adapter.inputValue()) === '') await adapter.selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Next' }).click();
    await visible(page.locator('.connect-none'));
    await shoot(page, 'install-connect');
  });

  test('no script errors or CSP violations along the way', () => {
    assert.deepEqual(problems, []);
  });
});
