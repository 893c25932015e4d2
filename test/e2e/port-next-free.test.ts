import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasAttr, hasText, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// The port field's "next free port" button (issue 24 item 11), in English and Dutch: two ports in a row are
// held by a program on the host (this test, listening on every address), the install form of an app with a
// port field is given the first of them; the host's check (the probe container on the host network) says the
// port is in use and offers the first free one above both; one click puts it in the field, the check then
// says it is free, and the review shows it.
requireBuiltWeb();

const PW = 'correct-horse-battery';

const UI = {
  en: {
    heading: 'Install Hello',
    label: 'Web port',
    message: 'Message',
    used: (p: number) => `Port ${p} is in use by another program on the host.`,
    nextFree: (p: number) => `Use the next free port (${p})`,
    free: (p: number) => `Port ${p} is free.`,
    next: 'Next',
    review: 'Step 2 of 2: Review',
  },
  nl: {
    heading: 'Hello installeren',
    label: 'Webpoort',
    message: 'Bericht',
    used: (p: number) => `Poort ${p} is in gebruik door een ander programma op de host.`,
    nextFree: (p: number) => `Volgende vrije poort gebruiken (${p})`,
    free: (p: number) => `Poort ${p} is vrij.`,
    next: 'Volgende',
    review: 'Stap 2 van 2: Controleren',
  },
} as const;

let git: GitServer;
let server: TestServer;
let browser: Browser;
const held: Server[] = [];
/** Per language the first of two held ports; the one after them is free. */
const first: Record<'en' | 'nl', number> = { en: 0, nl: 0 };
const problems: string[] = [];

function listen(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(null));
    s.listen(port, '0.0.0.0', () => resolve(s));
  });
}

/** Holds two ports in a row, with a third after them that is free, on every address of the host. */
async function holdTwo(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const a = await listen(0);
    const p = (a?.address() as { port: number } | null)?.port ?? 0;
    const b = p > 0 && p < 65533 ? await listen(p + 1) : null;
    const c = b ? await listen(p + 2) : null;
    if (a && b && c) {
      await new Promise<void>((r) => c.close(() => r()));
      held.push(a, b);
      return p;
    }
    for (const s of [a, b, c]) s?.close();
  }
  throw new Error('found no three free ports in a row');
}

before(async () => {
  await requireEngine();
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  server = await startTestServer();
  const api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  assert.equal((await api.post('/api/wizard/complete')).status, 200);
  await api.addSyncedRepo('Basic', git.url('basic'));
  first.en = await holdTwo();
  first.nl = await holdTwo();
  browser = await launchBrowser();
});

after(async () => {
  for (const s of held) s.close();
  await browser?.close();
  await server?.close();
  await git?.close();
});

for (const lang of ['en', 'nl'] as const) {
  const ui = UI[lang];
  describe(`the next free port (${lang})`, () => {
    let page: Page;
    const port = () => page.getByLabel(ui.label, { exact: true });
    const check = () => page.locator('.port-check');

    test('a port a host program holds is named in use, and the next free one above is offered', async () => {
      page = await logInAt(browser, problems, { url: `${server.url}/store/basic/hello/install`, lang, width: 1280, password: PW });
      await visible(page.getByRole('heading', { name: ui.heading, level: 1 }));
      await port().fill(String(first[lang]));
      // Host listeners are read by the probe container: the first check may take a moment.
      await hasText(check(), ui.used(first[lang]), 30_000);
      await hasAttr(port(), 'aria-invalid', 'true');
      // Both held ports are skipped.
      await visible(page.getByRole('button', { name: ui.nextFree(first[lang] + 2), exact: true }));
      await shoot(page, `port-next-free-${lang}`);
    });

    test('one click puts it in the field; the check says it is free and the review shows it', async () => {
      const chosen = first[lang] + 2;
      await page.getByRole('button', { name: ui.nextFree(chosen), exact: true }).click();
      assert.equal(await port().inputValue(), String(chosen));
      await hasText(check(), ui.free(chosen), 30_000);
      assert.equal(await page.getByRole('button', { name: ui.nextFree(chosen + 1) }).count(), 0);
      assert.notEqual(await port().getAttribute('aria-invalid'), 'true');
      await shoot(page, `port-next-free-chosen-${lang}`);
      await page.getByLabel(ui.message, { exact: true }).fill('hello');
      await page.getByRole('button', { name: ui.next, exact: true }).click();
      await hasText(page.locator('.install-form h2'), ui.review);
      await visible(page.locator('.install-review dd', { hasText: new RegExp(`^${chosen}$`) }));
      await page.context().close();
    });
  });
}

test('no script errors along the way', () => {
  assert.deepEqual(problems, []);
});
