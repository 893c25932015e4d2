import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { fingerprint } from '../helpers/fingerprint.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, hasAttr, hasCount, hasText, isFocused, launchBrowser, openPage, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// SPEC, Adopt: a compose app started by hand below BASE_DIR is taken under management from the apps
// screen without its folder changing; a folder Kade cannot see is refused with where it must lie.
requireBuiltWeb();

const execFileP = promisify(execFile);
const PW = 'correct-horse-battery';
/** compose v1 names the project after the folder without dashes, so this folder name is the app name. */
const NAME = `kadetestadoptui${randomBytes(3).toString('hex')}`;

let server: TestServer;
let browser: Browser;
let page: Page;
let dir = '';
let started = false;
let elsewhere = '';
let before_: string[] = [];
const problems: string[] = [];

const compose = (args: string[]) => execFileP('docker-compose', args, { cwd: dir, timeout: 120_000 });

async function logIn(p: Page, user: string): Promise<void> {
  await p.goto(server.url);
  await p.getByLabel('User name').fill(user);
  await p.getByLabel('Password').fill(PW);
  await p.getByRole('button', { name: 'Log in' }).click();
  await visible(p.getByRole('heading', { name: 'Apps', level: 1 }));
}

const row = (p: Page) => p.getByRole('listitem').filter({ has: p.getByRole('heading', { name: NAME, level: 2 }) });

before(async () => {
  await requireEngine();
  server = await startTestServer();
  const api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  for (const [name, role] of [
    ['oper', 'operator'],
    ['viewer', 'viewer'],
  ] as const) {
    assert.equal((await api.post('/api/users', { name, password: PW, role })).status, 201);
  }
  dir = join(server.baseDir, 'outside', NAME);
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    [
      'services:',
      '  app:',
      '    image: kade-test/busybox:1',
      '    init: true',
      '    command: ["sleep", "3600"]',
      '    labels:',
      '      kade.test: "1"',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, '.env'), 'GREETING=left alone\n', { mode: 0o640 });
  writeFileSync(join(dir, 'data', 'notes.txt'), 'the user’s own file\n');
  started = true;
  await compose(['up', '-d']);
  before_ = fingerprint(dir);
  // A real folder with a compose file, but outside the mounted BASE_DIR.
  elsewhere = mkdtempSync(join(tmpdir(), 'kade-adopt-elsewhere-'));
  writeFileSync(join(elsewhere, 'docker-compose.yml'), 'services:\n  a:\n    image: kade-test/busybox:1\n');
  browser = await launchBrowser();
});

after(async () => {
  try {
    if (started) await compose(['down', '--timeout', '5']).catch((err) => console.warn(`docker-compose down in ${dir}: ${String(err)}`));
  } finally {
    if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
    await browser?.close();
    await server?.close();
  }
});

describe('adopting an app from the apps screen', () => {
  test('a viewer is not offered to adopt', async () => {
    const viewer = await openPage(browser, problems);
    await logIn(viewer, 'viewer');
    await hasCount(viewer.getByRole('button', { name: 'Adopt an app' }), 0);
    await viewer.context().close();
  });

  test('an operator opens the form; a folder outside BASE_DIR is refused with where it must lie', async () => {
    page = await openPage(browser, problems);
    await logIn(page, 'oper');
    const open = page.getByRole('button', { name: 'Adopt an app' });
    await hasAttr(open, 'aria-expanded', 'false');
    await open.click();
    await hasAttr(open, 'aria-expanded', 'true');
    const form = page.getByRole('form', { name: 'Adopt an app' });
    const path = form.getByLabel('Folder of the app');
    await isFocused(path);

    await path.fill('outside/relative');
    await form.getByRole('button', { name: 'Adopt', exact: true }).click();
    await hasText(form.getByRole('alert'), 'Give the full path of the folder: it starts with /.');
    await hasAttr(path, 'aria-invalid', 'true');

    const base = server.baseDir;
    await path.fill(elsewhere);
    // Live, before any submit: the path check names the mounted BASE_DIR.
    await hasText(form.locator('.adopt-check'), `⚠ Kade cannot see this folder: it must lie below BASE_DIR (${base}), the folder mounted into Kade.`);
    await form.getByRole('button', { name: 'Adopt', exact: true }).click();
    await hasText(
      form.getByRole('alert'),
      `Kade cannot see ${elsewhere}. The folder of an adopted app must lie below BASE_DIR (${realpathSync(base)}), the folder mounted into Kade: move the app’s folder there, then adopt it.`,
    );
    await hasAttr(path, 'aria-invalid', 'true');
    await shoot(page, 'adopt-outside');
    await hasCount(row(page), 0);
  });

  test('the real folder is adopted: the list shows it running and adopted, its files are unchanged', async () => {
    const form = page.getByRole('form', { name: 'Adopt an app' });
    const path = form.getByLabel('Folder of the app');
    await path.fill(dir);
    await hasText(form.locator('.adopt-check'), `✓ Kade can see this folder (below BASE_DIR ${server.baseDir}).`);
    await hasAttr(path, 'aria-invalid', '');
    await form.getByRole('button', { name: 'Adopt', exact: true }).click();
    const notice = page.locator('.adopt-done');
    await hasText(notice, `${NAME} is adopted: Kade manages it now, and its folder stays where it was. Open ${NAME}`, 15_000);
    await isFocused(notice);
    await hasCount(form, 0);
    await hasAttr(page.getByRole('button', { name: 'Adopt an app' }), 'aria-expanded', 'false');

    const r = row(page);
    await hasCount(r, 1);
    await hasText(r.locator('.stack-status'), /Running/, 30_000);
    await hasText(r.locator('.stack-meta'), /Adopted/);
    await visible(r.getByRole('button', { name: `Restart ${NAME}` }));
    assert.deepEqual(fingerprint(dir), before_, 'nothing in the folder changed');
    await shoot(page, 'adopt-done');

    await notice.getByRole('link', { name: `Open ${NAME}` }).click();
    await visible(page.getByRole('heading', { name: NAME, level: 1 }));
    assert.equal(new URL(page.url()).pathname, `/apps/${NAME}`);
    await hasText(page.locator('.appview-status'), /Running/, 30_000);
  });

  test('in Dutch: the marker, the refusal naming BASE_DIR, and a folder adopted already', async () => {
    await page.getByLabel('Language').selectOption('nl');
    await page.getByRole('link', { name: 'Apps', exact: true }).first().click();
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    const r = row(page);
    await hasText(r.locator('.stack-meta'), /Overgenomen/);
    await hasText(r.locator('.stack-status'), /Actief/);

    await page.getByRole('button', { name: 'App overnemen' }).click();
    const form = page.getByRole('form', { name: 'App overnemen' });
    const path = form.getByLabel('Map van de app');
    await path.fill(elsewhere);
    await hasText(
      form.locator('.adopt-check'),
      `⚠ Kade kan deze map niet zien: hij moet onder BASE_DIR (${server.baseDir}) liggen, de map die in Kade is gekoppeld.`,
    );
    await form.getByRole('button', { name: 'Overnemen', exact: true }).click();
    await hasText(
      form.getByRole('alert'),
      `Kade kan ${elsewhere} niet zien. De map van een overgenomen app moet onder BASE_DIR (${realpathSync(server.baseDir)}) liggen, de map die in Kade is gekoppeld: verplaats de map van de app daarheen en neem hem dan over.`,
    );
    await shoot(page, 'adopt-outside-nl');

    await path.fill(dir);
    await form.getByLabel('Naam in Kade (optioneel)').fill('tweede-naam');
    await form.getByRole('button', { name: 'Overnemen', exact: true }).click();
    await hasText(form.getByRole('alert'), `Deze map is al overgenomen, als de app ${NAME}.`);
    await shoot(page, 'adopt-again-nl');
    assert.deepEqual(fingerprint(dir), before_, 'nothing in the folder changed');

    // Escape closes the form and gives the focus back to the button that opened it.
    await path.press('Escape');
    await hasCount(form, 0);
    await isFocused(page.getByRole('button', { name: 'App overnemen' }));
    await eventually(async () => assert.equal(await row(page).count(), 1));
    assert.deepEqual(problems, []);
  });
});
