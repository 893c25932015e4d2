// Open screens follow the app's files (issue 24 item 17): a Configure tab left open shows the new values after a
// change made elsewhere and after a snapshot restore, without a reload; the compose editor reads the file again
// when nothing is typed, and says so (keeping the edit) when something is. In en and nl.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../engine/contract-helpers.ts';
import { type BasicKade, startBasicKade } from '../helpers/basic-kade.ts';
import type { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import type { TestServer } from '../helpers/server.ts';
import { eventually, hasText, launchBrowser, logInAt, removeStackContainers, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

requireBuiltWeb();

const PW = 'correct-horse-battery';
const APP = `kadetest-files-${randomBytes(3).toString('hex')}`;
let kade: BasicKade;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let port = 0;
const problems: string[] = [];

/** A change made elsewhere (another browser, the API): the message set through a reconfigure job. */
async function reconfigure(message: string): Promise<void> {
  const r = await api.post<{ job: { id: string } }>(`/api/stacks/${APP}/reconfigure`, { values: { port, message } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await api.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
}

before(async () => {
  await requireEngine();
  kade = await startBasicKade(PW);
  ({ server, api } = kade);
  port = await freePort();
  const inst = await api.post<{ job: { id: string } }>('/api/store/install', {
    repo: 'basic',
    app: 'hello',
    name: APP,
    values: { port, message: 'first message' },
  });
  assert.equal(inst.status, 202, JSON.stringify(inst.body));
  assert.equal((await api.waitJob(inst.body.job.id)).state, 'succeeded');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await kade?.close();
  await removeStackContainers(APP);
});

async function openTab(lang: 'en' | 'nl', tab: string): Promise<Page> {
  const page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PW });
  await page.getByRole('link', { name: APP, exact: true }).click();
  await page.getByRole('tab', { name: tab }).click();
  return page;
}

const fieldShows = (page: Page, label: string, want: string) =>
  eventually(async () => assert.equal(await page.getByLabel(label, { exact: true }).inputValue(), want), 20_000);

test('en: Configure shows the values of a change made elsewhere, then those of a snapshot restore, without a reload', async () => {
  const page = await openTab('en', 'Configure');
  await fieldShows(page, 'Message', 'first message');
  await reconfigure('second message');
  await fieldShows(page, 'Message', 'second message');
  await visible(page.getByText("The app's files changed (a restore, an edit or a change by someone else): the form now shows the values they hold."));

  // The snapshot the reconfigure took holds the first message; restoring it puts the files back.
  const snaps = await api.get<{ id: string }[]>(`/api/stacks/${APP}/snapshots`);
  const newest = snaps.body[0]?.id ?? '';
  const restored = await api.post(`/api/stacks/${APP}/snapshots/${newest}/restore`, {});
  assert.equal(restored.status, 200, JSON.stringify(restored.body));
  await fieldShows(page, 'Message', 'first message');
  await shoot(page, 'files-changed-configure-en');
  await page.context().close();
});

test('en: the compose editor reads a changed file again; with an edit typed, it keeps the edit and offers the new text', async () => {
  const page = await openTab('en', 'Files');
  const editor = page.getByRole('textbox', { name: 'Compose file' });
  await eventually(async () => assert.match(await editor.inputValue(), /first message/));
  await reconfigure('third message');
  await eventually(async () => assert.match(await editor.inputValue(), /third message/), 20_000);

  await editor.fill(`${await editor.inputValue()}\n# my edit\n`);
  await reconfigure('fourth message');
  const notice = page.getByText('This file changed since you opened it (a restore, an edit or a change by someone else). Your edit is still here.');
  await visible(notice, 20_000);
  assert.match(await editor.inputValue(), /# my edit/);
  await shoot(page, 'files-changed-editor-en');
  await page.getByRole('button', { name: 'Discard my edit and load the new text' }).click();
  await eventually(async () => assert.match(await editor.inputValue(), /fourth message/));
  assert.doesNotMatch(await editor.inputValue(), /# my edit/);
  await page.context().close();
});

test('nl: Instellen follows a change made elsewhere, saying so in Dutch', async () => {
  const page = await openTab('nl', 'Instellen');
  await fieldShows(page, 'Bericht', 'fourth message');
  await reconfigure('vijfde bericht');
  await fieldShows(page, 'Bericht', 'vijfde bericht');
  await hasText(page.locator('.configure-reloaded'), /^De bestanden van de app zijn gewijzigd/);
  await shoot(page, 'files-changed-configure-nl');
  await page.context().close();
  assert.deepEqual(problems, []);
});
