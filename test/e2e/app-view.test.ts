import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../engine/contract-helpers.ts';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  eventually,
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

// The view of one app on the real engine: the basic fixture's `hello` installed through the API, then its
// containers, credentials, compose and .env editors and snapshots as an admin and as a viewer, in en and nl.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const SECRET = `e2e-${randomBytes(6).toString('hex')}`;
const STACK = `kadetest-view-${randomBytes(4).toString('hex')}`;
const IMAGE = 'kade-test/busybox:1';

let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let page: Page;
let installed = false;
let composeBefore = '';
const problems: string[] = [];

const stackFile = (name: string) => readFileSync(join(server.baseDir, 'stacks', STACK, name), 'utf8');
/** A card of the view, found by its heading (sections named by their heading are regions). */
const region = (p: Page, title: string) => p.getByRole('region', { name: title, exact: true });

async function logIn(p: Page, user: string): Promise<void> {
  await p.goto(server.url);
  await p.getByLabel('User name').fill(user);
  await p.getByLabel('Password').fill(PW);
  await p.getByRole('button', { name: 'Log in' }).click();
  await visible(p.getByRole('heading', { name: 'Apps', level: 1 }));
}

async function credentialViews(): Promise<number> {
  const r = await api.get<{ total: number }>(`/api/audit?action=credentials_view&q=${STACK}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.total;
}

before(async () => {
  await requireEngine();
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  // An admin is led into the setup wizard until it is done; that is not what this file tests.
  await api.post('/api/wizard/complete');
  assert.equal((await api.post('/api/users', { name: 'viewer', password: PW, role: 'viewer' })).status, 201);
  await api.addSyncedRepo('Basic', git.url('basic'));
  const values = { port: await freePort(), message: 'hello from the app view', admin_password: SECRET };
  const inst = await api.post<{ job: { id: string } }>('/api/store/install', { repo: 'basic', app: 'hello', name: STACK, values });
  assert.equal(inst.status, 202, JSON.stringify(inst.body));
  installed = true;
  const job = await api.waitJob(inst.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  composeBefore = stackFile('docker-compose.yml');
  browser = await launchBrowser();
  page = await openPage(browser, problems);
});

after(async () => {
  try {
    if (installed) {
      await api.removeApp(STACK);
      await removeStackContainers(STACK);
    }
  } finally {
    await browser?.close();
    await server?.close();
    await git?.close();
  }
});

describe('the view of one app, as an admin', () => {
  test('the app name in the list leads to the view: status, open link, actions and the running image', async () => {
    await logIn(page, 'admin');
    await shoot(page, 'app-view-apps-list');
    await page.getByRole('link', { name: STACK, exact: true }).click();
    await visible(page.getByRole('heading', { name: STACK, level: 1 }));
    assert.equal(new URL(page.url()).pathname, `/apps/${STACK}`);
    await isFocused(page.getByRole('heading', { name: STACK, level: 1 }));
    await hasText(page.locator('.appview-status'), /Running/, 30_000);
    await visible(page.getByRole('link', { name: `Open ${STACK} in a new tab` }));
    await visible(page.getByRole('button', { name: `Restart ${STACK}` }));
    const tab = page.getByRole('tab', { name: 'Overview' });
    await hasAttr(tab, 'aria-selected', 'true');
    const ctr = page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3 }) });
    await hasCount(ctr, 1);
    await visible(ctr.getByText('Running image'));
    await hasText(ctr.locator('code'), IMAGE);
    await visible(ctr.getByText('web', { exact: true }));
    await visible(ctr.getByText(/^127\.0\.0\.1:\d+→8080\/tcp$/));
    await shoot(page, 'app-view-overview');
  });

  test('credentials are fetched only on a click (audited), masked until revealed', async () => {
    const panel = region(page, 'Credentials');
    await visible(panel.getByText(/every time that is written to the audit log/));
    assert.equal(await credentialViews(), 0, 'opening the view does not fetch the credentials');
    await panel.getByRole('button', { name: 'Show credentials' }).click();
    await visible(panel.getByText('Password', { exact: true }));
    await visible(panel.getByRole('link', { name: /^http:\/\/127\.0\.0\.1:\d+\/$/ }));
    assert.ok(!((await panel.textContent()) ?? '').includes(SECRET), 'the password starts masked');
    await visible(panel.getByText('Password (hidden)'));
    await visible(panel.getByRole('button', { name: 'Copy Password' }));
    await shoot(page, 'app-view-credentials');
    await panel.getByRole('button', { name: 'Show Password' }).click();
    await visible(panel.getByText(SECRET, { exact: true }));
    await eventually(async () => assert.equal(await credentialViews(), 1));
    await panel.getByRole('button', { name: 'Hide Password' }).click();
    await hasCount(panel.getByText(SECRET, { exact: true }), 0);
    await panel.getByRole('button', { name: 'Hide credentials' }).click();
    await visible(panel.getByRole('button', { name: 'Show credentials' }));
  });

  test('tabs: arrow keys move between them, the hash keeps the tab over a reload', async () => {
    await page.getByRole('tab', { name: 'Overview' }).focus();
    await page.keyboard.press('ArrowRight');
    await hasAttr(page.getByRole('tab', { name: 'Configure' }), 'aria-selected', 'true');
    await isFocused(page.getByRole('tab', { name: 'Configure' }));
    await visible(page.getByRole('tabpanel', { name: 'Configure' }));
    await shoot(page, 'app-view-configure');
    await page.keyboard.press('End');
    await hasAttr(page.getByRole('tab', { name: 'Backups' }), 'aria-selected', 'true');
    assert.equal(new URL(page.url()).hash, '#backups');
    await page.keyboard.press('ArrowLeft');
    await hasAttr(page.getByRole('tab', { name: 'Files' }), 'aria-selected', 'true');
    assert.equal(new URL(page.url()).hash, '#files');
    await page.reload();
    await hasAttr(page.getByRole('tab', { name: 'Files' }), 'aria-selected', 'true');
    await visible(page.getByRole('tabpanel', { name: 'Files' }).getByRole('heading', { name: 'Compose file' }));
  });

  test('invalid YAML is refused with the reason and the file stays as it was', async () => {
    const compose = region(page, 'Compose file');
    const text = compose.getByRole('textbox', { name: 'Compose file' });
    await eventually(async () => assert.equal(await text.inputValue(), composeBefore));
    await visible(compose.getByText(/^Lines: \d+/));
    await text.fill(`${composeBefore}\n  broken: [unclosed\n`);
    await visible(compose.getByText('unsaved changes'));
    await compose.getByRole('button', { name: 'Save', exact: true }).click();
    await hasText(compose.getByRole('alert'), /^Not saved\. The compose file is not valid YAML \(line \d+\)\./);
    await hasAttr(text, 'aria-invalid', 'true');
    assert.equal(stackFile('docker-compose.yml'), composeBefore, 'the refused text was not written');
    await hasCount(compose.getByText(/^Saved\./), 0);
    await shoot(page, 'app-view-compose-refused');
  });

  test('a valid save names the snapshot kept, which shows in the list', async () => {
    const compose = region(page, 'Compose file');
    const text = compose.getByRole('textbox', { name: 'Compose file' });
    await text.fill(`# edited in the app view\n${composeBefore}`);
    await compose.getByRole('button', { name: 'Save', exact: true }).click();
    const saved = compose.getByText(/^Saved\. The previous version is kept as snapshot (\S+)\.$/);
    await visible(saved);
    const id = /snapshot (\S+)\.$/.exec((await saved.textContent()) ?? '')?.[1] ?? '';
    assert.ok(id, 'a snapshot id is named');
    assert.equal(stackFile('docker-compose.yml'), `# edited in the app view\n${composeBefore}`);
    const snaps = region(page, 'Snapshots');
    const row = snaps.locator(`li[data-id="${id}"]`);
    await visible(row.getByText('Before a change of the compose file'));
    await visible(row.getByText(id));
    await shoot(page, 'app-view-compose-saved');
  });

  test('the .env editor refuses a line without “=”, naming it; the file is unchanged and private', async () => {
    const env = region(page, '.env file');
    await visible(env.getByText(/On disk the file stays readable by Kade only\./));
    const text = env.getByRole('textbox', { name: '.env file' });
    const envBefore = stackFile('.env');
    assert.ok(envBefore.includes(SECRET));
    // Secrets arrive masked; showing them is a click that the audit log records.
    await eventually(async () => assert.match(await text.inputValue(), /=••••••••$/m));
    assert.ok(!(await text.inputValue()).includes(SECRET), 'the secret is on screen before anyone asked');
    await visible(env.getByText(/Hidden secret values/));
    await shoot(page, 'app-view-env-masked');
    const reveals = async () => (await api.get<{ total: number }>(`/api/audit?action=env_reveal&q=${STACK}`)).body.total;
    const revealedBefore = await reveals();
    await env.getByRole('button', { name: 'Show secrets' }).click();
    await eventually(async () => assert.equal(await text.inputValue(), envBefore));
    assert.equal(await reveals(), revealedBefore + 1);
    const lines = envBefore.replace(/\n$/, '').split('\n');
    await text.fill(`${envBefore}THIS LINE IS BROKEN\n`);
    await env.getByRole('button', { name: 'Save', exact: true }).click();
    await hasText(env.getByRole('alert'), `Not saved. Line ${lines.length + 1} has no “=”. Every line must read NAME=value.`);
    assert.equal(stackFile('.env'), envBefore);
    await shoot(page, 'app-view-env-refused');
    await env.getByRole('button', { name: 'Undo changes' }).click();
    assert.equal(await text.inputValue(), envBefore);
    await hasCount(env.getByRole('alert'), 0);
  });

  test('restoring a snapshot brings the old text back into the editor and the file', async () => {
    const snaps = region(page, 'Snapshots');
    // Newest first: the copy taken before the compose edit.
    const first = snaps.getByRole('listitem').first();
    await visible(first.getByText('Before a change of the compose file'));
    await first.getByRole('button', { name: /^Restore the snapshot of / }).click();
    await visible(first.getByText(/The current files are kept as a new snapshot first/));
    await isFocused(first.getByRole('button', { name: 'Cancel' }));
    await shoot(page, 'app-view-restore-confirm');
    await first.getByRole('button', { name: 'Restore files' }).click();
    await visible(snaps.getByText(/^Snapshot \S+ is back\. The files from just before are kept as snapshot \S+\.$/));
    const text = region(page, 'Compose file').getByRole('textbox', { name: 'Compose file' });
    await eventually(async () => assert.equal(await text.inputValue(), composeBefore));
    assert.equal(stackFile('docker-compose.yml'), composeBefore);
    await visible(snaps.getByRole('listitem').first().getByText('Before a restore'));
    // The restored files run after "Apply now"; the app keeps running.
    await page.getByRole('button', { name: 'Apply now' }).click();
    await hasText(page.locator('.job-progress-state'), 'Done', 120_000);
    await shoot(page, 'app-view-restored');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, 'app-view-restored-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('in Dutch', async () => {
    await page.getByLabel('Language').selectOption('nl');
    await visible(page.getByRole('tab', { name: 'Overzicht' }));
    await visible(page.getByRole('tab', { name: 'Instellen' }));
    await visible(page.getByRole('tab', { name: 'Bestanden' }));
    const env = region(page, '.env-bestand');
    const text = env.getByRole('textbox', { name: '.env-bestand' });
    const envBefore = stackFile('.env');
    await visible(env.getByText(/Verborgen geheime waarden/));
    await visible(env.getByRole('button', { name: 'Geheimen tonen' }));
    await text.fill(`GEEN_GELIJKTEKEN\n${envBefore}`);
    await env.getByRole('button', { name: 'Opslaan', exact: true }).click();
    await hasText(env.getByRole('alert'), 'Niet opgeslagen. Regel 1 heeft geen “=”. Elke regel moet de vorm NAAM=waarde hebben.');
    assert.equal(stackFile('.env'), envBefore);
    await visible(page.getByRole('heading', { name: 'Momentopnamen', level: 2 }));
    await shoot(page, 'app-view-files-nl');
    await page.getByRole('tab', { name: 'Overzicht' }).click();
    const panel = region(page, 'Inloggegevens');
    await panel.getByRole('button', { name: 'Inloggegevens tonen' }).click();
    await panel.getByRole('button', { name: 'Wachtwoord tonen' }).click();
    await visible(panel.getByText(SECRET, { exact: true }));
    await visible(page.getByText('Draaiende image'));
    await shoot(page, 'app-view-overview-nl');
    await page.getByLabel('Taal').selectOption('en');
  });
});

describe('the view of one app, as a viewer', () => {
  test('no credentials, no configure tab; the compose file read-only, no .env and no snapshots', async () => {
    const viewer = await openPage(browser, problems);
    await logIn(viewer, 'viewer');
    await viewer.getByRole('link', { name: STACK, exact: true }).click();
    await visible(viewer.getByRole('heading', { name: STACK, level: 1 }));
    await hasText(viewer.locator('.appview-ctr code'), IMAGE);
    await hasCount(viewer.getByRole('heading', { name: 'Credentials' }), 0);
    await hasCount(viewer.getByRole('button', { name: 'Show credentials' }), 0);
    await hasCount(viewer.getByRole('button', { name: `Restart ${STACK}` }), 0);
    await hasCount(viewer.getByRole('tab'), 3);
    await hasCount(viewer.getByRole('tab', { name: 'Configure' }), 0);
    await shoot(viewer, 'app-view-viewer');
    await viewer.getByRole('tab', { name: 'Files' }).click();
    const text = viewer.getByRole('textbox', { name: 'Compose file' });
    await eventually(async () => assert.equal(await text.inputValue(), composeBefore));
    assert.equal(await text.getAttribute('readonly'), '');
    await visible(viewer.getByText(/Only operators and admins can change this file\./));
    await hasCount(viewer.getByRole('button', { name: 'Save', exact: true }), 0);
    await hasCount(viewer.getByRole('heading', { name: '.env file' }), 0);
    await hasCount(viewer.getByRole('heading', { name: 'Snapshots' }), 0);
    await shoot(viewer, 'app-view-viewer-files');
    // A hash naming a tab the role may not see falls back to the overview.
    await viewer.goto(`${server.url}/apps/${STACK}#configure`);
    await hasAttr(viewer.getByRole('tab', { name: 'Overview' }), 'aria-selected', 'true');
    await viewer.context().close();
  });
});

describe('an app that does not exist', () => {
  test('the view says so instead of showing empty tabs', async () => {
    await page.goto(`${server.url}/apps/kadetest-no-such-app`);
    await visible(page.getByRole('heading', { name: 'kadetest-no-such-app', level: 1 }));
    await hasText(page.getByRole('alert'), '“kadetest-no-such-app” was not found.');
    await hasCount(page.getByRole('tab'), 0);
  });

  test('no script errors along the way', () => {
    assert.deepEqual(problems, []);
  });
});
