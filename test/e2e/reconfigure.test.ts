import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { StackConfigT } from '../../src/shared/stack-config.ts';
import { freePort } from '../engine/contract-helpers.ts';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addInstalledStack, writeBulkRepo } from './store-helpers.ts';
import { hasAttr, hasText, isFocused, launchBrowser, openPage, removeStackContainers, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// The Configure tab of an installed app (issue 5): the install form again, filled with the stored
// values, plus the extras per service; applied by a job on the real engine, checked through the API.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const STACK = `kadetest-recfg-${randomBytes(4).toString('hex')}`;
const SECRET = 'first-admin-secret-value';
// Stack folders only (never started): one from a repo written for an older Kade, one whose repo is gone.
const OLD = `kadetest-recfg-old-${randomBytes(3).toString('hex')}`;
const GONE = `kadetest-recfg-gone-${randomBytes(3).toString('hex')}`;
// From the examples: groups with a toggle and advanced fields, with no values stored.
const GITEA = `kadetest-recfg-gitea-${randomBytes(3).toString('hex')}`;

let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let page: Page;
let extraDir = '';
let oldDir = '';
let installed = false;
const problems: string[] = [];

const config = async () => {
  const r = await api.get<StackConfigT>(`/api/stacks/${STACK}/config`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
};
const compose = async () => (await api.get<{ content: string }>(`/api/stacks/${STACK}/compose`)).body.content;
const form = () => page.locator('form.configure-form');
const service = (name: string) => page.locator(`.configure-service[data-service="${name}"]`);
const apply = async (p = page) => {
  await p.getByRole('button', { name: /^(Apply changes|Wijzigingen toepassen)$/ }).click();
};

before(async () => {
  await requireEngine();
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  await api.addSyncedRepo('Basic', git.url('basic'));
  await git.addRepo('examples', 'examples', { branch: 'main' });
  await api.addSyncedRepo('Examples', git.url('examples'));
  oldDir = mkdtempSync(join(tmpdir(), 'kade-e2e-old-'));
  writeBulkRepo(oldDir, 1);
  await git.addRepo('old', oldDir, { branch: 'main' });
  await api.addSyncedRepo('Old', git.url('old'));
  const repos = (await api.get<{ id: string; name: string }[]>('/api/repos')).body;
  const repoId = (name: string) => repos.find((r) => r.name === name)?.id ?? name.toLowerCase();
  const repo = repoId('Basic');
  addInstalledStack(server.baseDir, OLD, repoId('Old'), 'bulk-001');
  addInstalledStack(server.baseDir, GONE, 'gone-repo', 'gone');
  addInstalledStack(server.baseDir, GITEA, repoId('Examples'), 'gitea');
  for (const name of [OLD, GONE, GITEA]) await api.acceptFiles(name);
  const inst = await api.post<{ job: { id: string } }>('/api/store/install', {
    repo,
    app: 'hello',
    name: STACK,
    values: { port: await freePort(), message: 'first message', admin_password: SECRET },
  });
  assert.equal(inst.status, 202, JSON.stringify(inst.body));
  installed = true;
  const job = await api.waitJob(inst.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  // A folder the app gets read-only: below its own data folder DATA_DIR/<name>, the one place the bind policy allows without a setting.
  extraDir = join(server.baseDir, 'appdata', STACK, 'media');
  mkdirSync(extraDir, { recursive: true });
  await api.post('/api/users', { name: 'otto', password: PW, role: 'operator' });

  browser = await launchBrowser();
  page = await openPage(browser, problems);
  await page.goto(server.url);
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill(PW);
  await page.getByRole('button', { name: 'Log in' }).click();
  await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
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
    await removeStackContainers(STACK);
    if (oldDir) rmSync(oldDir, { recursive: true, force: true });
  }
});

describe('reconfigure an installed app', () => {
  test('the Configure tab shows the template, the stored values and the extras of each service', async () => {
    await page.goto(`${server.url}/apps/${STACK}#configure`);
    await visible(page.getByRole('heading', { name: 'Settings', level: 2 }));
    await visible(page.getByRole('heading', { name: 'Template', level: 2 }));
    await visible(page.locator('.configure-facts').getByText('1.0.0'));
    await visible(page.locator('.configure-facts').getByText('app hello of repository basic'));
    // The basic fixture is written for this Kade; the outdated notice is tested with the old repo below.
    assert.equal(await page.getByText('Outdated repository.').count(), 0);
    assert.equal(await form().locator('[name="message"]').inputValue(), 'first message');
    // An admin sees the stored secret (hidden until shown), like in the install form.
    assert.equal(await form().locator('[name="admin_password"]').inputValue(), SECRET);
    await hasAttr(form().locator('[name="admin_password"]'), 'type', 'password');
    // The app's own container holds its port; that is not a conflict.
    await hasText(form().locator('.port-check'), /^Port \d+ is in use by this app itself, so it keeps it\.$/);
    await visible(service('web').getByText('kade-test/busybox:1', { exact: true }));
    await visible(service('web').getByText('No extra folders.'));
    await shoot(page, 'reconfigure-start');
  });

  test('an emptied required field is named and marked; nothing is sent', async () => {
    const message = form().getByLabel('Message', { exact: true });
    await message.fill('');
    await apply();
    await hasText(form().locator('[role="alert"]').first(), 'Fill in the required fields: Message.');
    await hasAttr(message, 'aria-invalid', 'true');
    await isFocused(message);
    await visible(form().getByText('This field is required.'));
    await shoot(page, 'reconfigure-required');
    await message.fill('second message');
    await hasAttr(message, 'aria-invalid', '');
    assert.equal((await config()).values.message, 'first message');
  });

  test('a host folder in /etc is refused at the folder with the one bind-policy message', async () => {
    await service('web').getByRole('button', { name: 'Add a folder' }).click();
    const host = service('web').getByLabel('Folder on the host');
    await host.fill('/etc');
    await service('web').getByLabel('Folder in the app').fill('/host-etc');
    await apply();
    await hasAttr(host, 'aria-invalid', 'true');
    await visible(
      service('web').getByText(
        `/etc is not allowed: an app may use only its own data folder (${join(server.baseDir, 'appdata', STACK)}), its own folder, the host folders an admin allowed and the serial and video devices Kade lists.`,
      ),
    );
    await shoot(page, 'reconfigure-forbidden');
    assert.equal((await config()).services[0]?.volumes.length, 0);
  });

  test('a device that is not a path under /dev is marked before anything is sent', async () => {
    await service('web').getByRole('button', { name: 'Add a device' }).click();
    const device = service('web').getByLabel('Device 1', { exact: true });
    await isFocused(device);
    await device.fill('ttyUSB0');
    await apply();
    await hasAttr(device, 'aria-invalid', 'true');
    await visible(service('web').getByText('A device path under /dev/, e.g. /dev/ttyUSB0.'));
    await service('web').getByRole('button', { name: 'Remove device 1' }).click();
    await visible(service('web').getByText('No devices.'));
  });

  test('the version list comes from the host’s images when the registry cannot be asked', async () => {
    await service('web').getByRole('button', { name: 'Show available versions' }).click();
    await hasText(service('web').locator('.configure-tag .hint'), /^Versions from (the registry|the images on this host): \d+\./, 30_000);
    const tags = await service('web').getByLabel('Version tag').locator('option').allTextContents();
    assert.ok(tags.includes('2'), tags.join(', '));
  });

  test('a changed value, a read-only folder and a version tag are applied by a job', async () => {
    const host = service('web').getByLabel('Folder on the host');
    await host.fill(extraDir);
    await hasAttr(host, 'aria-invalid', '');
    await hasText(service('web').locator('.configure-path-check'), `✓ exists · writable · inside ${server.baseDir}`);
    await service('web').getByLabel('Folder in the app').fill('/media');
    await service('web').getByLabel('Read-only').check();
    await service('web').getByLabel('Version tag').selectOption('2');
    await shoot(page, 'reconfigure-filled');
    await apply();
    await visible(page.getByRole('heading', { name: `Applying the changes to ${STACK}`, level: 2 }));
    await hasText(page.locator('.job-progress-state'), 'Done', 120_000);
    await visible(page.getByRole('heading', { name: `Changes applied to ${STACK}`, level: 2 }));
    await visible(page.getByText(`${STACK} runs with the new settings.`));
    // The form starts again from what is stored now.
    await visible(service('web').getByText('kade-test/busybox:2', { exact: true }));
    assert.equal(await form().locator('[name="message"]').inputValue(), 'second message');
    await shoot(page, 'reconfigure-done');

    const c = await config();
    assert.equal(c.values.message, 'second message');
    assert.equal(c.values.admin_password, SECRET);
    assert.deepEqual(c.services.find((s) => s.name === 'web')?.volumes, [{ host: extraDir, container: '/media', read_only: true }]);
    assert.equal(c.services.find((s) => s.name === 'web')?.tag, '2');
    const text = await compose();
    assert.ok(text.includes(`${extraDir}:/media:ro`), text);
    assert.ok(text.includes('kade-test/busybox:2'), text);
    assert.ok(text.includes('second message'), text);
  });

  test('a failing change says why and that the previous state is back', async () => {
    // Something else holds the new port, so the restart fails and the server puts the old files back.
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as { port: number }).port;
    const before = (await config()).values.port;
    try {
      await form().getByLabel('Web port', { exact: true }).fill(String(taken));
      await apply();
      await hasText(page.locator('.job-progress-state'), /^Failed/, 120_000);
      await visible(page.getByRole('heading', { name: `The changes to ${STACK} failed`, level: 2 }));
      // The job's own reason is in its state line and log; the panel adds what became of the app.
      await hasText(
        page.locator('.configure-run .job-progress-state'),
        new RegExp(`^Failed: port ${taken} is already in use on this host \\(127\\.0\\.0\\.1\\), so compose up could not start '${STACK}'`),
      );
      await visible(page.locator('.configure-run [role="alert"]').getByText('The changes could not be applied; the reason is shown above and in the log.'));
      await visible(page.getByText('Kade put the previous files back, so the app runs as before. Your changes are still in the form below.'));
      // The form keeps what was typed, for another try.
      assert.equal(await form().getByLabel('Web port', { exact: true }).inputValue(), String(taken));
      await shoot(page, 'reconfigure-failed');
      assert.equal((await config()).values.port, before);
      assert.ok(!(await compose()).includes(`:${taken}:`));
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
    await page.getByRole('button', { name: 'Undo my changes' }).click();
    assert.equal(await form().getByLabel('Web port', { exact: true }).inputValue(), String(before));
  });

  test('in Dutch; an operator sees the secret as kept and a change leaves it as it was', async () => {
    const context = await browser.newContext({ locale: 'nl-NL', viewport: { width: 1280, height: 800 } });
    const op = await context.newPage();
    op.setDefaultTimeout(10_000);
    op.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    try {
      await op.goto(server.url);
      await op.getByLabel('Gebruikersnaam').fill('otto');
      await op.getByLabel('Wachtwoord').fill(PW);
      await op.getByRole('button', { name: 'Inloggen' }).click();
      await visible(op.getByRole('heading', { name: 'Apps', level: 1 }));
      await op.goto(`${server.url}/apps/${STACK}#configure`);
      await visible(op.getByRole('heading', { name: 'Instellingen', level: 2 }));
      await visible(op.getByRole('heading', { name: 'Extra mappen' }));
      await visible(op.getByText('Blijft ongewijzigd (voor jou verborgen)'));
      assert.equal(await op.locator('form.configure-form [name="admin_password"]').count(), 0);
      await visible(op.getByRole('button', { name: 'Nieuwe waarde invullen voor Beheerderswachtwoord' }));
      await shoot(op, 'reconfigure-nl-operator');
      // A new value can be typed, and the form can go back to keeping the stored one.
      await op.getByRole('button', { name: 'Nieuwe waarde invullen voor Beheerderswachtwoord' }).click();
      await isFocused(op.locator('form.configure-form [name="admin_password"]'));
      assert.equal(await op.locator('form.configure-form [name="admin_password"]').inputValue(), '');
      await visible(op.getByRole('button', { name: 'Beheerderswachtwoord genereren' }));
      await op.getByRole('button', { name: 'Huidige waarde van Beheerderswachtwoord behouden' }).click();
      await visible(op.getByText('Blijft ongewijzigd (voor jou verborgen)'));
      assert.equal(await op.locator('form.configure-form [name="admin_password"]').count(), 0);
      await op.getByLabel('Bericht', { exact: true }).fill('derde bericht');
      await apply(op);
      await hasText(op.locator('.job-progress-state'), 'Klaar', 120_000);
      await visible(op.getByText(`${STACK} draait met de nieuwe instellingen.`));
      await shoot(op, 'reconfigure-nl-done');
    } finally {
      await context.close();
    }
    const c = await config();
    assert.equal(c.values.message, 'derde bericht');
    assert.equal(c.values.admin_password, SECRET, 'the secret the operator could not see is kept');
  });

  test('an app from a repo written for an older Kade gets a notice above its form', async () => {
    await page.goto(`${server.url}/apps/${OLD}#configure`);
    await visible(page.getByRole('heading', { name: 'Settings', level: 2 }));
    await visible(page.getByText('Outdated repository.'));
    await visible(page.getByText(/written for an older Kade \(version v0\.0\.50\)/));
    await visible(form().getByLabel('Port', { exact: true }));
    await shoot(page, 'reconfigure-outdated');
  });

  test('without a template there is no form, and the tab says why and where to go', async () => {
    await page.goto(`${server.url}/apps/${GONE}#configure`);
    await visible(page.getByRole('heading', { name: 'No settings form', level: 2 }));
    await visible(page.getByText(/^The repository “gone-repo” this app was installed from is no longer in Kade/));
    assert.equal(await form().count(), 0);
    await page.getByRole('link', { name: 'Go to the files' }).click();
    await hasAttr(page.getByRole('tab', { name: /^Files$/ }), 'aria-selected', 'true');
    await page.goto(`${server.url}/apps/${GONE}#configure`);
    await visible(page.getByRole('heading', { name: 'No settings form', level: 2 }));
    await shoot(page, 'reconfigure-no-form');
  });

  test('groups with their switch, advanced settings behind one switch, and every empty required field named', async () => {
    await page.goto(`${server.url}/apps/${GITEA}#configure`);
    await visible(page.getByRole('heading', { name: 'E-mail', level: 3 }));
    await visible(form().getByText('Switched off: these settings are not used and need not be filled in.'));
    const advanced = form().getByRole('switch', { name: 'Show advanced settings (3)' });
    assert.equal(await advanced.isChecked(), false);
    assert.equal(await form().locator('[name="puid"]').count(), 0);
    await advanced.check();
    await visible(form().locator('[name="puid"]'));
    await advanced.uncheck();
    // With no value stored, a field starts at its default, as in an install form; the port is emptied here by hand.
    const webPort = form().getByLabel('Web port', { exact: true });
    assert.equal(await webPort.inputValue(), '3000');
    await webPort.fill('');
    const mail = form().getByRole('switch', { name: 'Use E-mail' });
    await mail.check();
    await apply();
    await hasText(form().locator('[role="alert"]').first(), 'Fill in the required fields: Web port, SMTP server, Sender address.');
    await isFocused(webPort);
    await hasAttr(form().getByLabel('SMTP server'), 'aria-invalid', 'true');
    await shoot(page, 'reconfigure-groups');
    // Switched off, the group's fields no longer count.
    await mail.uncheck();
    await hasText(form().locator('[role="alert"]').first(), 'Fill in the required fields: Web port.');
  });

  test('no script errors or CSP violations along the way', () => {
    assert.deepEqual(problems, []);
  });
});
