// The update badge (issue 24 item 1) against the local registry: an app whose image has a newer digest shows
// "Update available" after "Check now", the badge's age stays after a restart of Kade, the Update button
// updates it and the badge goes; "Check all for updates" runs one job over every app. In en and nl.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type Registry, startRegistry } from '../helpers/registry.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasText, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

requireBuiltWeb();

const execFileP = promisify(execFile);
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 120_000 })).stdout.trim();
const PW = 'correct-horse-battery';
const APP = 'kadetest-badge';
const V1 = 'kade-test/busybox:1';
const V2 = 'kade-test/busybox:2';

let registry: Registry;
let ref = '';
let root: string;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
const problems: string[] = [];

/** Pushes a local image as the app's registry image and drops the local tag, so only the registry has it. */
async function push(source: string): Promise<void> {
  await docker(['tag', source, ref]);
  await docker(['push', ref]);
  await docker(['rmi', ref]);
}

/** Kade on the same folders (a restart keeps the database), with no background round during the test. */
async function startKade(): Promise<void> {
  server = await startTestServer({ stateDir: join(root, 'state'), baseDir: join(root, 'base'), kade: { firstUpdateCheckMs: 3_600_000 } });
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  registry = await startRegistry();
  ref = `${registry.host}/kadetest/badge:latest`;
  root = mkdtempSync(join(tmpdir(), 'kade-badge-'));
  await startKade();
  assert.equal((await api.post('/api/wizard/complete')).status, 200);
  // Off, so only the user's checks ask the registry: what the test sees comes from the buttons.
  assert.equal((await api.put('/api/settings', { UPDATE_CHECK_ENABLED: false })).status, 200);
  await push(V1);
  const dir = join(server.baseDir, 'stacks', APP);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    `services:\n  app:\n    image: ${ref}\n    init: true\n    command: ["sleep", "3600"]\n    labels:\n      kade.test: "1"\n`,
  );
  await api.acceptFiles(APP);
  const r = await api.post<{ job: { id: string } }>(`/api/stacks/${APP}/start`);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await api.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await cleanupLabelled();
  await docker(['rmi', '--force', ref]).catch(() => undefined);
  const refs = (await docker(['images', '--digests', '--format', '{{.Repository}}@{{.Digest}}']).catch(() => '')).split('\n');
  for (const r of refs.filter((x) => x.startsWith(`${registry?.host}/kadetest/`))) await docker(['rmi', r]).catch(() => undefined);
  await registry?.close();
  rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
});

const row = (page: Page) => page.getByRole('listitem', { name: APP });

async function openApps(lang: 'en' | 'nl', width = 1280): Promise<Page> {
  const page = await logInAt(browser, problems, { url: server.url, lang, width, password: PW });
  await visible(row(page));
  return page;
}

test('en: never checked, then Check now finds the newer digest; the badge and its age survive a restart; Update makes it go', async () => {
  let page = await openApps('en');
  await hasText(row(page).locator('.update-age'), 'Not checked for updates yet');
  await row(page)
    .getByRole('button', { name: `Check ${APP} for updates now` })
    .click();
  await hasText(row(page).locator('.update-outcome'), 'Up to date.');
  await hasText(row(page).locator('.update-age'), 'Up to date, checked just now');
  assert.equal(await row(page).locator('.badge-update').count(), 0);

  await push(V2);
  await row(page)
    .getByRole('button', { name: `Check ${APP} for updates now` })
    .click();
  await hasText(row(page).locator('.update-outcome'), 'An update is available.');
  await hasText(row(page).locator('.badge-update'), 'Update available');
  await hasText(row(page).locator('.update-age'), 'checked just now');
  await visible(row(page).getByRole('button', { name: `Update ${APP}: pull the new images and recreate` }));
  await shoot(page, 'update-badge-en');
  await page.context().close();

  // Kade restarts: the last known result is read back from its database, with its time.
  const checkedAt = (await api.get<{ name: string; update_checked_at: string }[]>('/api/stacks')).body.find((s) => s.name === APP)?.update_checked_at;
  await server.close();
  await startKade();
  const again = (await api.get<{ name: string; update: string; update_checked_at: string }[]>('/api/stacks')).body.find((s) => s.name === APP);
  assert.deepEqual([again?.update, again?.update_checked_at], ['update', checkedAt]);

  page = await openApps('en');
  await hasText(row(page).locator('.badge-update'), 'Update available');
  await row(page)
    .getByRole('button', { name: `Check ${APP} for updates now` })
    .click();
  await hasText(row(page).locator('.update-outcome'), 'An update is available.');
  await row(page)
    .getByRole('button', { name: `Update ${APP}: pull the new images and recreate` })
    .click();
  await hasText(row(page).locator('.job-line'), `${APP} updated.`, 120_000);
  await hasText(row(page).locator('.update-age'), 'Up to date, checked just now');
  assert.equal(await row(page).locator('.badge-update').count(), 0, 'the badge is gone after the update');
  assert.equal(await row(page).locator('.update-outcome').textContent(), '', 'the earlier "update available" went with it');
  await page.context().close();
});

test('nl: Alles op updates controleren runs one job over every app; the badge shows in Dutch', async () => {
  await push(V1);
  const page = await openApps('nl');
  await page.getByRole('button', { name: 'Alles op updates controleren' }).click();
  const panel = page.locator('.update-all');
  await hasText(panel.locator('.job-progress-state'), 'Klaar', 60_000);
  await hasText(panel.locator('.job-log'), new RegExp(`${APP}: update available`));
  await hasText(row(page).locator('.badge-update'), 'Update beschikbaar');
  await hasText(row(page).locator('.update-age'), 'gecontroleerd zojuist');
  await shoot(page, 'update-badge-nl');
  await page.setViewportSize({ width: 390, height: 844 });
  await visible(row(page).getByRole('button', { name: `${APP} nu op updates controleren` }));
  await page.context().close();
  assert.deepEqual(problems, []);
});
