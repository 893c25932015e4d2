import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// From a failed install to a running app without leaving the browser (issue 11 items 2 and 3): the list
// shows the failure and why, "Try again" starts it once the cause is gone, and Delete (with the exact
// list of what "also remove its data" removes) clears the name for a new install.
requireBuiltWeb();

const PW = 'correct-horse-battery';
let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
const problems: string[] = [];

const holdPort = async (): Promise<{ port: number; server: Server }> => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { port: (s.address() as { port: number }).port, server: s };
};

async function failedInstall(name: string, port: number): Promise<void> {
  const r = await api.post<{ job: { id: string } }>('/api/store/install', { repo: 'basic', app: 'hello', name, values: { port, message: `hi ${name}` } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.equal((await api.waitJob(r.body.job.id)).state, 'failed', 'the install fails: its port is taken');
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  await api.addSyncedRepo('basic', git.url('basic'));
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
  await git?.close();
  await cleanupLabelled();
});

const TEXT = {
  en: {
    // Kade's own sentence, once (issue #24 item 12), not compose's words repeated per service.
    failed:
      /The last action on this app \(install\) failed: port \d+ is already in use on this host \(127\.0\.0\.1\), so compose up could not start '[^']+': give the app another port in Configure, then try again/,
    retry: (n: string) => `Try to start ${n} again`,
    remove: 'Remove',
    withData: 'Also remove its data',
    backup: 'Back it up first (kept in the backups; if the backup fails, the delete goes on)',
    confirm: (n: string) => `Delete ${n}`,
    deleteLabel: (n: string) => `Delete ${n}`,
    deleteTitle: (n: string) => `Delete the app ${n}?`,
    running: 'Running',
  },
  nl: {
    failed: /De laatste actie op deze app \(install\) is mislukt: port \d+ is already in use on this host \(127\.0\.0\.1\)/,
    retry: (n: string) => `Probeer ${n} opnieuw te starten`,
    remove: 'Verwijderen',
    withData: 'Ook de gegevens verwijderen',
    backup: 'Eerst een back-up maken (blijft bij de back-ups; mislukt de back-up, dan gaat het verwijderen door)',
    confirm: (n: string) => `${n} verwijderen`,
    deleteLabel: (n: string) => `${n} verwijderen`,
    deleteTitle: (n: string) => `De app ${n} verwijderen?`,
    running: 'Actief',
  },
};

const logIn = (lang: 'en' | 'nl', width: number): Promise<Page> => logInAt(browser, problems, { url: `${server.url}/apps`, lang, width, password: PW });

for (const [lang, width] of [
  ['en', 1280],
  ['nl', 390],
] as const) {
  test(`${lang}: a failed install shows why; once the port is free, Try again runs it`, async () => {
    const name = `kadetest-fail-${lang}`;
    const held = await holdPort();
    await failedInstall(name, held.port);
    const page = await logIn(lang, width);
    const row = page.getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });
    await visible(row.getByRole('alert').filter({ hasText: TEXT[lang].failed }));
    const said = (await row.getByRole('alert').innerText()).match(/already in use/g) ?? [];
    assert.equal(said.length, 1, 'the reason is said once');
    await shoot(page, `failed-install-${lang}`);
    await new Promise<void>((r) => held.server.close(() => r()));
    await row.getByRole('button', { name: TEXT[lang].retry(name), exact: true }).click();
    await visible(row.getByText(TEXT[lang].running, { exact: true }), 60_000);
    assert.equal(await row.getByRole('alert').count(), 0, 'the failure is gone once the app runs');
    await shoot(page, `failed-install-retried-${lang}`);

    // Delete from the app's own view: the confirmation names it, and the user lands on the list.
    await page.getByRole('link', { name, exact: true }).click();
    // Waited for with visible() first: if the view never shows the button, the error says what it showed instead.
    const deleteButton = page.getByRole('button', { name: TEXT[lang].deleteLabel(name), exact: true });
    await visible(deleteButton);
    await deleteButton.click();
    await visible(page.getByText(TEXT[lang].deleteTitle(name)));
    assert.equal(await page.getByLabel(TEXT[lang].backup).isChecked(), true, 'a backup first is offered, on by default');
    await shoot(page, `app-view-delete-${lang}`);
    await page.getByRole('button', { name: TEXT[lang].confirm(name), exact: true }).click();
    await page.waitForURL(/\/apps$/, { timeout: 60_000 });
    await page.getByRole('link', { name, exact: true }).waitFor({ state: 'detached', timeout: 60_000 });
    assert.equal(existsSync(join(server.baseDir, 'stacks', name)), false);
    const kept = await api.get<{ stack: string }[]>(`/api/backups?stack=${name}`);
    assert.equal(kept.body.length, 1, `the app was backed up before the delete: ${JSON.stringify(kept.body)}`);
    await page.context().close();
  });

  test(`${lang}: a failed install is removed with its data, listed first, and the name can be used again`, async () => {
    const name = `kadetest-gone-${lang}`;
    const held = await holdPort();
    await failedInstall(name, held.port);
    const page = await logIn(lang, width);
    const row = page.getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });
    await row.getByRole('button', { name: TEXT[lang].remove, exact: true }).click();
    await row.getByLabel(TEXT[lang].withData).check();
    await row.getByLabel(TEXT[lang].backup).uncheck();
    await visible(row.getByText(/\(volume\)|no data folder|geen eigen/));
    await shoot(page, `delete-confirm-${lang}`);
    await row.getByRole('button', { name: TEXT[lang].confirm(name), exact: true }).click();
    await page.getByRole('link', { name, exact: true }).waitFor({ state: 'detached', timeout: 60_000 });
    assert.equal(existsSync(join(server.baseDir, 'stacks', name)), false, 'the folder is gone');
    assert.deepEqual((await api.get(`/api/backups?stack=${name}`)).body, [], 'no backup when the box is cleared');
    await new Promise<void>((r) => held.server.close(() => r()));
    const again = await api.post<{ job: { id: string } }>('/api/store/install', {
      repo: 'basic',
      app: 'hello',
      name,
      values: { port: held.port, message: 'again' },
    });
    assert.equal(again.status, 202, JSON.stringify(again.body));
    assert.equal((await api.waitJob(again.body.job.id)).state, 'succeeded', 'the name is free again and the install runs');
    await page.context().close();
  });
}

test('no browser problems', () =>
  assert.deepEqual(
    problems.filter((p) => !/status of 40\d|status of 50\d/.test(p)),
    [],
  ));
