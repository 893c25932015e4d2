import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { createAuditRepo } from '../../src/server/audit/audit.repo.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, hasText, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// The audit screen's source, result and period filters (issue 24 item 11), in English and Dutch: a log with
// entries of three sources spread over the last 90 days, written with their own moments (the period filter
// counts back from now), narrowed by each filter alone and together, kept across a reload.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const HOUR = 3_600_000;

/** [hours ago, source, action, target, status]; the logins of the test add `auth` entries, which no count below includes. */
const SEED: [number, string, string, string, 'ok' | 'failed'][] = [
  [1, 'stacks', 'start', 'app-a', 'ok'],
  [1.2, 'stacks', 'start', 'app-b', 'failed'],
  [2, 'stacks', 'stop', 'app-c', 'ok'],
  [3, 'backups', 'backup', 'app-a', 'ok'],
  [72, 'stacks', 'start', 'app-d', 'ok'],
  [73, 'stacks', 'start', 'app-e', 'failed'],
  [240, 'backups', 'backup', 'app-b', 'failed'],
  [480, 'stacks', 'stop', 'app-f', 'ok'],
  [960, 'containers', 'restart', 'web-1', 'ok'],
  [2160, 'stacks', 'start', 'app-g', 'ok'],
];

const UI = {
  en: {
    title: 'Audit log',
    source: 'Source',
    status: 'Result',
    period: 'Period',
    apps: 'Apps',
    backups: 'Backups',
    containers: 'Containers',
    failed: 'Failed',
    all: 'All',
    periods: { '24h': 'Last 24 hours', '7d': 'Last 7 days', '30d': 'Last 30 days', '': 'Any time' },
    range: (n: number) => `1–${n} of ${n}`,
    noMatch: /^None of the \d+ entries match these filters\./,
    backUp: 'Back up',
  },
  nl: {
    title: 'Auditlog',
    source: 'Bron',
    status: 'Resultaat',
    period: 'Periode',
    apps: 'Apps',
    backups: 'Back-ups',
    containers: 'Containers',
    failed: 'Mislukt',
    all: 'Alle',
    periods: { '24h': 'Afgelopen 24 uur', '7d': 'Afgelopen 7 dagen', '30d': 'Afgelopen 30 dagen', '': 'Altijd' },
    range: (n: number) => `1–${n} van ${n}`,
    noMatch: /^Geen van de \d+ regels voldoet aan deze filters\./,
    backUp: 'Back-up maken',
  },
} as const;

let server: TestServer;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  server = await startTestServer();
  const api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  assert.equal((await api.post('/api/wizard/complete')).status, 200);
  // Written as the audit subscriber writes them, but with moments in the past.
  const db = new Database(join(server.stateDir, 'kade.db'));
  try {
    const repo = createAuditRepo(db);
    const now = Date.now();
    for (const [hours, source, action, target, status] of SEED) {
      repo.insert({ at: new Date(now - hours * HOUR).toISOString(), user: 'admin', ip: '192.168.1.5', source, action, target, status, detail: null });
    }
  } finally {
    db.close();
  }
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

for (const lang of ['en', 'nl'] as const) {
  const ui = UI[lang];
  describe(`audit filters (${lang})`, () => {
    let page: Page;
    const select = (label: string) => page.getByLabel(label, { exact: true });
    const chosen = (label: string) => select(label).locator('option:checked');
    const range = () => page.locator('.audit-range');
    const targets = () => page.locator('.audit-table tbody .a-target').allTextContents();
    const column = async (cls: string) => [...new Set((await page.locator(`.audit-table tbody .${cls}`).allTextContents()).map((s) => s.trim()))];
    /** The table shows exactly these targets, newest first. */
    const shows = (want: string[]) =>
      eventually(async () => {
        await hasText(range(), ui.range(want.length));
        assert.deepEqual(await targets(), want);
      });

    test('the source filter keeps one source, with its count in the choice', async () => {
      page = await logInAt(browser, problems, { url: `${server.url}/audit`, lang, width: 1280, password: PW });
      await visible(page.getByRole('heading', { name: ui.title, level: 1 }));
      await select(ui.source).selectOption('stacks');
      await shows(['app-a', 'app-b', 'app-c', 'app-d', 'app-e', 'app-f', 'app-g']);
      await hasText(chosen(ui.source), `${ui.apps} (7)`);
      assert.deepEqual(await column('a-source'), [ui.apps]);
      assert.match(page.url(), /[?&]source=stacks\b/);
    });

    test('the result filter narrows to the failed entries of that source', async () => {
      await select(ui.status).selectOption('failed');
      await shows(['app-b', 'app-e']);
      await hasText(chosen(ui.status), `${ui.failed} (2)`);
      assert.deepEqual(await column('a-status'), [ui.failed]);
      // The source list counts what the other filters leave: two failed app entries, one failed backup.
      await hasText(chosen(ui.source), `${ui.apps} (2)`);
      await hasText(select(ui.source).locator('option[value="backups"]'), `${ui.backups} (1)`);
      await select(ui.status).selectOption('');
    });

    test('the period counts back from now: 24 hours, 7 days, 30 days, any time', async () => {
      await select(ui.period).selectOption('24h');
      await hasText(chosen(ui.period), ui.periods['24h']);
      await shows(['app-a', 'app-b', 'app-c']);
      await select(ui.period).selectOption('7d');
      await shows(['app-a', 'app-b', 'app-c', 'app-d', 'app-e']);
      await hasText(chosen(ui.source), `${ui.apps} (5)`);
      await select(ui.period).selectOption('30d');
      await shows(['app-a', 'app-b', 'app-c', 'app-d', 'app-e', 'app-f']);
      // The container restart 40 days ago is outside the period, so its source is no choice.
      assert.equal(await select(ui.source).locator('option[value="containers"]').count(), 0);
      await select(ui.period).selectOption('');
      await shows(['app-a', 'app-b', 'app-c', 'app-d', 'app-e', 'app-f', 'app-g']);
      await hasText(select(ui.source).locator('option[value="containers"]'), `${ui.containers} (1)`);
    });

    test('the three together, kept across a reload; a period without matches says so', async () => {
      await select(ui.source).selectOption('backups');
      await select(ui.status).selectOption('failed');
      await select(ui.period).selectOption('30d');
      await shows(['app-b']);
      assert.deepEqual(await column('a-action-label'), [ui.backUp]);
      await page.reload();
      await shows(['app-b']);
      await hasText(chosen(ui.source), `${ui.backups} (1)`);
      await hasText(chosen(ui.status), `${ui.failed} (1)`);
      await hasText(chosen(ui.period), ui.periods['30d']);
      await shoot(page, `audit-filters-${lang}`);
      // The failed backup was 10 days ago.
      await select(ui.period).selectOption('7d');
      await hasText(page.locator('.empty p'), ui.noMatch);
      await shoot(page, `audit-filters-none-${lang}`);
      await page.context().close();
    });
  });
}

test('no script errors along the way', () => {
  assert.deepEqual(problems, []);
});
