// The jobs screen (issue 24 item 15): past jobs filtered by app, kind and state, a past job's log opened with
// its progress, reached from the menu, from the app view ("Jobs of this app") and from an app's failure line.
// In en and nl, at both widths.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type BasicKade, startBasicKade } from '../helpers/basic-kade.ts';
import type { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import type { GitServer } from '../helpers/git-server.ts';
import type { TestServer } from '../helpers/server.ts';
import { addStoppedStack, hasAttr, hasCount, hasText, launchBrowser, logInAt, removeStackContainers, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

requireBuiltWeb();

const PW = 'correct-horse-battery';
const APP = 'kadetest-jobs';
let kade: BasicKade;
let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let failedStart = '';
const problems: string[] = [];

before(async () => {
  await requireEngine();
  kade = await startBasicKade(PW);
  ({ git, server, api } = kade);
  // A fetch of a branch that does not exist: a failed job without an app.
  const bad = await api.post<{ job: { id: string } }>('/api/repos', { name: 'Broken', url: git.url('basic'), branch: 'nope', subdirectory: 'apps' });
  assert.equal(bad.status, 202, JSON.stringify(bad.body));
  assert.equal((await api.waitJob(bad.body.job.id)).state, 'failed');
  // An app whose image does not exist: its start fails with the engine's reason.
  addStoppedStack(server.baseDir, APP);
  await api.acceptFiles(APP);
  const start = await api.post<{ job: { id: string } }>(`/api/stacks/${APP}/start`);
  assert.equal(start.status, 202, JSON.stringify(start.body));
  failedStart = start.body.job.id;
  assert.equal((await api.waitJob(failedStart)).state, 'failed');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await kade?.close();
  await removeStackContainers(APP);
});

const rows = (page: Page) => page.getByRole('list', { name: /^(Jobs|Taken)$/ }).getByRole('listitem');

test('en: from the menu, every job; filters by state, kind and app narrow the list; a log opens with its progress', async () => {
  const page = await logInAt(browser, problems, { url: server.url, lang: 'en', width: 1280, password: PW });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs', exact: true }).click();
  await visible(page.getByRole('heading', { name: 'Jobs', level: 1 }));
  await hasCount(rows(page), 3);
  await hasText(rows(page).first().getByRole('heading'), `Start · ${APP}`);

  await page.getByLabel('State').selectOption({ label: 'Failed' });
  await hasCount(rows(page), 2);
  await page.getByLabel('Kind').selectOption({ label: 'Repository fetch' });
  await hasCount(rows(page), 1);
  await hasText(rows(page).first().locator('.job-state'), 'Failed');
  assert.match(page.url(), /\/jobs\?kind=repo\.sync&state=failed$/);
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await hasCount(rows(page), 3);
  await page.getByLabel('App', { exact: true }).selectOption(APP);
  await hasCount(rows(page), 1);

  const row = rows(page).first();
  await row.getByRole('button', { name: `Show the log of Start of ${APP}` }).click();
  await hasText(row.locator('.job-progress-state'), /^Failed: /);
  await hasAttr(row.locator('progress'), 'value', /^[01](\.\d+)?$/);
  await hasText(row.getByRole('log'), /failed: /);
  await shoot(page, 'jobs-en');
  await page.getByLabel('App', { exact: true }).selectOption('');
  await page.getByLabel('State').selectOption({ label: 'Succeeded' });
  await hasCount(rows(page), 1);
  await rows(page).first().getByRole('button', { name: 'Show the log of Repository fetch' }).click();
  await hasText(rows(page).first().locator('.job-progress-state'), 'Done');
  await hasText(rows(page).first().getByRole('log'), /2 apps/);
  await page.context().close();
});

test('en: the app view links to the jobs of the app, and its failure line to the failed job with its log open', async () => {
  const page = await logInAt(browser, problems, { url: server.url, lang: 'en', width: 1280, password: PW });
  await page.getByRole('link', { name: APP, exact: true }).click();
  await page.getByRole('link', { name: 'Jobs of this app' }).click();
  await visible(page.getByRole('heading', { name: 'Jobs', level: 1 }));
  assert.equal(await page.getByLabel('App', { exact: true }).inputValue(), APP);
  await hasCount(rows(page), 1);
  await page.goBack();
  await page.getByRole('alert').getByRole('link', { name: 'Read the log of that job' }).click();
  await visible(page.getByRole('heading', { name: 'Jobs', level: 1 }));
  const row = rows(page).first();
  await hasAttr(row.getByRole('button', { name: `Hide the log of Start of ${APP}` }), 'aria-expanded', 'true');
  await hasText(row.getByRole('log'), /failed: /);
  await page.context().close();
});

test('nl: Taken, with the filters and the kinds in Dutch', async () => {
  const page = await logInAt(browser, problems, { url: server.url, lang: 'nl', width: 1280, password: PW });
  await page.getByRole('navigation', { name: 'Hoofdmenu' }).getByRole('link', { name: 'Taken', exact: true }).click();
  await visible(page.getByRole('heading', { name: 'Taken', level: 1 }));
  await hasCount(rows(page), 3);
  await page.getByLabel('Status').selectOption({ label: 'Mislukt' });
  await hasCount(rows(page), 2);
  await visible(page.getByRole('heading', { name: 'Repository ophalen' }));
  await rows(page)
    .first()
    .getByRole('button', { name: `Logboek van Starten van ${APP} tonen` })
    .click();
  await hasText(rows(page).first().locator('.job-progress-state'), /^Mislukt: /);
  await shoot(page, 'jobs-nl');
  await page.context().close();
  assert.deepEqual(problems, []);
});
