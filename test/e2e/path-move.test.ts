import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasText, launchBrowser, logInAt, removeStackContainers, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// The path move in the interface (issue #14 item 6), on the real engine: a changed DATA_DIR saved on the
// settings screen offers "Move now"; after the confirmation the job runs, Kade restarts in place and the app
// runs from the new folder; the offer is gone. Once in en, once in nl (a second move).
const execFileP = promisify(execFile);
const PW = 'correct-horse-battery';
const STACK = 'kadetest-e2e-move';
const UI = {
  en: {
    field: 'App data (DATA_DIR)',
    save: 'Save settings',
    saved: /^Settings saved\./,
    now: 'Move now',
    confirm: 'Move the folders now?',
    yes: 'Move',
    done: 'Done',
  },
  nl: {
    field: 'App-data (DATA_DIR)',
    save: 'Instellingen opslaan',
    saved: /^Instellingen opgeslagen\./,
    now: 'Nu verplaatsen',
    confirm: 'De mappen nu verplaatsen?',
    yes: 'Verplaatsen',
    done: 'Klaar',
  },
} as const;

let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
const problems: string[] = [];

async function dataSource(): Promise<string> {
  const id = (await execFileP('docker', ['ps', '-q', '--filter', `label=com.docker.compose.project=${STACK}`])).stdout.trim();
  const info = JSON.parse((await execFileP('docker', ['inspect', id])).stdout)[0];
  return info.Mounts.find((m: { Destination: string }) => m.Destination === '/data')?.Source ?? '';
}

before(async () => {
  requireBuiltWeb();
  await requireEngine();
  git = await startGitServer();
  await git.addRepo('appdata', 'test/fixtures/repos/appdata', { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  await api.addSyncedRepo('appdata', git.url('appdata'));
  const inst = await api.post<{ job: { id: string } }>('/api/store/install', { repo: 'appdata', app: 'keeper', name: STACK, values: { message: 'moved' } });
  assert.equal(inst.status, 202, JSON.stringify(inst.body));
  const job = await api.waitJob(inst.body.job.id, 180_000);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await git?.close();
  await removeStackContainers(STACK);
});

for (const lang of ['en', 'nl'] as const) {
  const ui = UI[lang];
  test(`a saved DATA_DIR is moved from the settings screen (${lang})`, async () => {
    const from = (await api.get('/api/settings')).body.paths_in_use.DATA_DIR as string;
    const to = join(server.baseDir, `moved-${lang}`, 'appdata');
    assert.equal(await dataSource(), join(from, STACK, 'files'));

    const page = await logInAt(browser, problems, { url: `${server.url}/settings`, lang, width: 1280, password: PW });
    const field = page.getByLabel(ui.field, { exact: true });
    await visible(field);
    await field.fill(to);
    await page.getByRole('button', { name: ui.save, exact: true }).click();
    await hasText(page.locator('#settings-result'), ui.saved);
    const panel = page.locator('#folder-move');
    await hasText(panel.locator('li'), `DATA_DIR: ${from} → ${to}`);
    await page.getByRole('button', { name: ui.now, exact: true }).click();
    const question = page.getByRole('group', { name: ui.confirm });
    await visible(question);
    await shoot(page, `path-move-confirm-${lang}`);
    await question.getByRole('button', { name: ui.yes, exact: true }).click();
    await hasText(panel.locator('.job-progress-state'), ui.done, 120_000);
    await shoot(page, `path-move-done-${lang}`);
    // The offer is gone once the settings are read again: Kade works in the saved folder.
    await page.getByRole('button', { name: ui.now }).waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal((await api.get('/api/settings')).body.paths_in_use.DATA_DIR, to);
    assert.equal(await dataSource(), join(to, STACK, 'files'));
    assert.equal(existsSync(from), false, 'the old folder is removed');
    await page.context().close();
  });
}

test('no page errors', () => {
  assert.deepEqual(problems, []);
});
