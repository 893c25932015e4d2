// Operators and the spec's role table (issue 24 item 4): an operator edits the app's `.env` with its secret shown
// masked (and kept when saving), restores a snapshot, and on the backups list reads that downloading is for admins,
// because the archive holds the secrets in clear. In en and nl.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../engine/contract-helpers.ts';
import { type BasicKade, startBasicKade } from '../helpers/basic-kade.ts';
import type { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import type { TestServer } from '../helpers/server.ts';
import { eventually, hasText, launchBrowser, removeStackContainers, requireBuiltWeb, shoot, visible, watchPage } from './web-helpers.ts';

requireBuiltWeb();

const PW = 'correct-horse-battery';
const OP_PW = 'operator-password-1';
const SECRET = `op-never-sees-${randomBytes(4).toString('hex')}`;
const APP = `kadetest-opfiles-${randomBytes(3).toString('hex')}`;
const MASK = '••••••••';
let kade: BasicKade;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  await requireEngine();
  kade = await startBasicKade(PW);
  ({ server, api } = kade);
  const port = await freePort();
  const inst = await api.post<{ job: { id: string } }>('/api/store/install', {
    repo: 'basic',
    app: 'hello',
    name: APP,
    values: { port, message: 'hello operator', admin_password: SECRET },
  });
  assert.equal(inst.status, 202, JSON.stringify(inst.body));
  assert.equal((await api.waitJob(inst.body.job.id)).state, 'succeeded');
  const backup = await api.post<{ job: { id: string } }>('/api/backups', { stack: APP });
  assert.equal(backup.status, 202, JSON.stringify(backup.body));
  assert.equal((await api.waitJob(backup.body.job.id)).state, 'succeeded');
  assert.equal((await api.post('/api/users', { name: 'oper', password: OP_PW, role: 'operator' })).status, 201);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await kade?.close();
  await removeStackContainers(APP);
});

const TEXT = {
  en: { user: 'User name', pw: 'Password', login: 'Log in', files: 'Files', backups: 'Backups', env: '.env file' },
  nl: { user: 'Gebruikersnaam', pw: 'Wachtwoord', login: 'Inloggen', files: 'Bestanden', backups: 'Back-ups', env: '.env-bestand' },
};

/** Logged in as the operator, on the app's tab `tab`. */
async function openAsOperator(lang: 'en' | 'nl', tab: 'files' | 'backups'): Promise<Page> {
  const context = await browser.newContext({ locale: lang === 'nl' ? 'nl-NL' : 'en-US', viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  watchPage(page, problems);
  await page.goto(server.url);
  const t = TEXT[lang];
  await page.getByLabel(t.user).fill('oper');
  await page.getByLabel(t.pw).fill(OP_PW);
  await page.getByRole('button', { name: t.login }).click();
  await page.getByRole('link', { name: APP, exact: true }).click();
  await page.getByRole('tab', { name: t[tab] }).click();
  return page;
}

/** The stored `.env` as the admin reads it in clear. */
async function storedEnv(): Promise<string> {
  const r = await api.get<{ content: string }>(`/api/stacks/${APP}/env?reveal=1`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.content;
}

test('en: an operator edits .env with the secret masked (kept when saving), then restores the snapshot from before the edit', async () => {
  const page = await openAsOperator('en', 'files');
  const env = page.getByRole('textbox', { name: '.env file' });
  await eventually(async () => assert.match(await env.inputValue(), new RegExp(`=${MASK}`)));
  assert.ok(!(await env.inputValue()).includes(SECRET), 'the operator never sees the secret');
  await hasText(page.locator('.appview-masked').first(), 'Hidden secret values (••••••••): 1. Saving keeps them as they are. Only an admin can show them.');
  assert.equal(await page.getByRole('button', { name: 'Show secrets' }).count(), 0, 'no way to reveal for an operator');

  await env.fill(`${await env.inputValue()}GREETING=from the operator\n`);
  const envCard = env.locator('xpath=ancestor::section[1]');
  await envCard.getByRole('button', { name: 'Save', exact: true }).click();
  await visible(envCard.getByText(/^Saved\. The previous version is kept as snapshot /));
  await eventually(async () => assert.match(await env.inputValue(), /GREETING=from the operator/));
  assert.ok(!(await env.inputValue()).includes(SECRET));
  const saved = await storedEnv();
  assert.ok(saved.includes(SECRET), 'the masked secret was kept');
  assert.match(saved, /GREETING=from the operator/);
  await shoot(page, 'operator-env-saved-en');

  // The newest snapshot was taken before the edit: restoring it puts the .env back without the new line.
  const snap = page.locator('.appview-snap').first();
  await hasText(snap.locator('p').first(), /Before a change of \.env/);
  await snap.getByRole('button', { name: /^Restore the snapshot of / }).click();
  await page.getByRole('button', { name: 'Restore files' }).click();
  await visible(page.getByText(/^Snapshot \S+ is back\. The files from just before are kept as snapshot /));
  await eventually(async () => assert.doesNotMatch(await env.inputValue(), /GREETING/), 20_000);
  assert.doesNotMatch(await storedEnv(), /GREETING/);
  assert.ok((await storedEnv()).includes(SECRET));
  await visible(page.getByRole('button', { name: 'Apply now' }));
  await shoot(page, 'operator-snapshot-restored-en');
  await page.context().close();
});

test('en: on the backups list an operator reads that downloading is for admins, and finds no download', async () => {
  const page = await openAsOperator('en', 'backups');
  await visible(page.getByRole('button', { name: /^Verify the backup of / }).first());
  await visible(page.getByText('Only admins can download a backup: the archive holds the app’s secrets (its .env) in clear.'));
  assert.equal(await page.getByRole('link', { name: /^Download the backup of / }).count(), 0);
  await shoot(page, 'operator-backups-en');
  await page.context().close();
});

test('nl: the operator reads the same in Dutch: the masked .env and the download for admins only', async () => {
  const page = await openAsOperator('nl', 'files');
  const env = page.getByRole('textbox', { name: '.env-bestand' });
  await eventually(async () => assert.match(await env.inputValue(), new RegExp(`=${MASK}`)));
  await hasText(page.locator('.appview-masked').first(), /Alleen een beheerder kan ze tonen\.$/);
  await shoot(page, 'operator-env-nl');
  await page.getByRole('tab', { name: 'Back-ups' }).click();
  await visible(page.getByText('Alleen beheerders kunnen een back-up downloaden: het archief bevat de geheimen van de app (de .env) leesbaar.'));
  await shoot(page, 'operator-backups-nl');
  await page.context().close();
  assert.deepEqual(problems, []);
});
