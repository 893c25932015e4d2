import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import type { BackupScheduleT, BackupT } from '../../src/shared/backups.ts';
import { freePort } from '../engine/contract-helpers.ts';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  hasAttr,
  hasCount,
  hasText,
  isFocused,
  launchBrowser,
  logInAt,
  openPage,
  removeStackContainers,
  requireBuiltWeb,
  shoot,
  visible,
} from './web-helpers.ts';

// Backups in the interface (issue 14), on the real engine: the configure fixture's `board` (a web service and a
// real PostgreSQL) installed through the API, then in en and in nl: backed up from its app view, listed as
// verified with its database, downloaded, restored after a confirmation naming the app and the time (a file
// written after the backup is gone again), deleted; the schedule set on the Backups screen; the disk bar. In en
// also the disk bar turning red through the settings screen, a refusal for lack of space with its sizes, and a viewer.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const STACK = `kadetest-bkui-${randomBytes(3).toString('hex')}`;
const MARKER = 'written-after-the-backup.txt';

type Lang = 'en' | 'nl';

/** What the user reads and clicks, per language. */
const UI = {
  en: {
    apps: 'Apps',
    nav: 'Backups',
    tab: 'Backups',
    now: 'Back up now',
    done: 'Done',
    verified: 'Verified',
    db: 'db (postgres)',
    download: (s: string, t: string) => `Download the backup of ${s} from ${t}`,
    restore: (s: string, t: string) => `Restore ${s} from the backup of ${t}`,
    confirm: (s: string, t: string) => `Restore ${s} to the backup of ${t}?`,
    restoreYes: (s: string) => `Yes, restore ${s}`,
    restored: (s: string, t: string) => `${s} has been restored to the backup of ${t}.`,
    remove: (s: string, t: string) => `Delete the backup of ${s} from ${t}`,
    removeConfirm: (s: string, t: string) => `Delete the backup of ${s} from ${t}?`,
    removeYes: 'Yes, delete',
    removed: (s: string, t: string) => `The backup of ${s} from ${t} has been deleted.`,
    cancel: 'Cancel',
    mode: 'Weekly',
    day: 'Day',
    time: 'Time',
    count: 'Backups kept per app',
    days: 'Maximum age in days',
    save: 'Save schedule',
    saved: 'Schedule saved.',
    next: /^Next scheduled round: .+/,
    meter: 'Disk usage of the backup folder',
    usage: /^.+ of .+ used \(\d+([.,]\d)?%\) · .+ free$/,
  },
  nl: {
    apps: 'Apps',
    nav: 'Back-ups',
    tab: 'Back-ups',
    now: 'Nu back-up maken',
    done: 'Klaar',
    verified: 'Gecontroleerd',
    db: 'db (postgres)',
    download: (s: string, t: string) => `De back-up van ${s} van ${t} downloaden`,
    restore: (s: string, t: string) => `${s} terugzetten naar de back-up van ${t}`,
    confirm: (s: string, t: string) => `${s} terugzetten naar de back-up van ${t}?`,
    restoreYes: (s: string) => `Ja, ${s} terugzetten`,
    restored: (s: string, t: string) => `${s} is teruggezet naar de back-up van ${t}.`,
    remove: (s: string, t: string) => `De back-up van ${s} van ${t} verwijderen`,
    removeConfirm: (s: string, t: string) => `De back-up van ${s} van ${t} verwijderen?`,
    removeYes: 'Ja, verwijderen',
    removed: (s: string, t: string) => `De back-up van ${s} van ${t} is verwijderd.`,
    cancel: 'Annuleren',
    mode: 'Dagelijks',
    day: 'Dag',
    time: 'Tijd',
    count: 'Bewaarde back-ups per app',
    days: 'Hoogste leeftijd in dagen',
    save: 'Planning opslaan',
    saved: 'Planning opgeslagen.',
    next: /^Volgende geplande ronde: .+/,
    meter: 'Schijfgebruik van de back-upmap',
    usage: /^.+ van .+ in gebruik \(\d+([.,]\d)?%\) · .+ vrij$/,
  },
} as const;

/** The schedule each language saves: en weekly on Wednesday, nl daily (the day stays); both at an hour twelve hours away. */
const farHour = (new Date().getHours() + 12) % 24;
const SCHEDULE: Record<Lang, Omit<BackupScheduleT, 'next_run'>> = {
  en: { mode: 'weekly', day: 3, hour: farHour, retention_count: 5, retention_days: 30 },
  nl: { mode: 'daily', day: 3, hour: farHour, retention_count: 3, retention_days: 0 },
};

let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let installed = false;
const problems: string[] = [];

const backupsOf = async (): Promise<BackupT[]> => {
  const r = await api.get<BackupT[]>(`/api/backups?stack=${STACK}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
};
const item = (scope: Page | Locator, id: string) => scope.locator(`li.backup[data-backup="${id}"]`);
/** The time as the item's heading shows it: every label and question of the item names it. */
const timeOf = async (li: Locator) => ((await li.getByRole('heading', { level: 3 }).textContent()) ?? '').trim();

before(async () => {
  await requireEngine();
  git = await startGitServer();
  await git.addRepo('configure', 'test/fixtures/repos/configure', { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  assert.equal((await api.post('/api/users', { name: 'vera', password: PW, role: 'viewer' })).status, 201);
  await api.addSyncedRepo('Configure', git.url('configure'));
  const inst = await api.post<{ job: { id: string } }>('/api/store/install', {
    repo: 'configure',
    app: 'board',
    name: STACK,
    values: { port: await freePort(), title: 'Backed up board', db_password: 'board-db-pass-1' },
  });
  assert.equal(inst.status, 202, JSON.stringify(inst.body));
  installed = true;
  const job = await api.waitJob(inst.body.job.id, 300_000);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  browser = await launchBrowser();
});

after(async () => {
  try {
    if (installed) {
      await api.removeApp(STACK, { removeData: true, timeoutMs: 300_000 });
    }
  } finally {
    await browser?.close();
    await server?.close();
    await git?.close();
    await removeStackContainers(STACK);
  }
});

for (const lang of ['en', 'nl'] as const) {
  const ui = UI[lang];
  describe(`backups in the interface (${lang})`, () => {
    let page: Page;
    let id = '';
    let time = '';

    test('the app is backed up from its Backups tab and listed as verified, with its database', async () => {
      page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PW });
      await visible(page.getByRole('heading', { name: ui.apps, level: 1 }));
      await page.getByRole('link', { name: STACK, exact: true }).click();
      await page.getByRole('tab', { name: ui.tab, exact: true }).click();
      const before = (await backupsOf()).map((b) => b.id);
      await page.getByRole('tabpanel').getByRole('button', { name: ui.now, exact: true }).click();
      const run = page.locator('.backup-now .job-progress');
      await hasText(run.locator('.job-progress-state'), ui.done, 120_000);
      await visible(run.getByRole('log'));
      const made = (await backupsOf()).filter((b) => !before.includes(b.id));
      assert.equal(made.length, 1, JSON.stringify(made));
      const b = made[0] as BackupT;
      assert.equal(b.verified, true);
      id = b.id;
      const li = item(page, id);
      await visible(li.locator('.backup-head').getByText(`✓ ${ui.verified}`, { exact: true }));
      await visible(li.getByText(ui.db, { exact: true }));
      time = await timeOf(li);
      assert.ok(time.length > 0);
      await shoot(page, `backups-app-tab-${lang}`);
    });

    test('the download link gives the archive', async () => {
      const link = item(page, id).getByRole('link', { name: ui.download(STACK, time), exact: true });
      await hasAttr(link, 'href', `/api/backups/${id}/download`);
      await hasAttr(link, 'download', `${id}.tar.gz`);
      const got = await page.request.get(`${server.url}/api/backups/${id}/download`);
      assert.equal(got.status(), 200);
      assert.equal(got.headers()['content-type'], 'application/gzip');
      const body = await got.body();
      assert.equal(body.length, (await backupsOf()).find((b) => b.id === id)?.size);
      assert.deepEqual([...body.subarray(0, 2)], [0x1f, 0x8b], 'a gzip stream');
    });

    test('a restore asks first, naming the app and the time, then follows the job until the app is the backup’s', async () => {
      const marker = join(server.baseDir, 'stacks', STACK, MARKER);
      writeFileSync(marker, 'not in the backup\n');
      const li = item(page, id);
      await li.getByRole('button', { name: ui.restore(STACK, time), exact: true }).click();
      const question = li.getByRole('group', { name: ui.confirm(STACK, time), exact: true });
      await visible(question);
      await isFocused(question.getByRole('button', { name: ui.cancel, exact: true }));
      await shoot(page, `backups-restore-confirm-${lang}`);
      await question.getByRole('button', { name: ui.restoreYes(STACK), exact: true }).click();
      await visible(li.getByText(ui.restored(STACK, time), { exact: true }), 180_000);
      await hasText(li.locator('.job-progress-state'), ui.done);
      assert.equal(existsSync(marker), false, 'the folder is the backup’s again');
      await shoot(page, `backups-restored-${lang}`);
    });

    test('a backup is deleted after a confirmation', async () => {
      const li = item(page, id);
      await li.getByRole('button', { name: ui.remove(STACK, time), exact: true }).click();
      const question = li.getByRole('group', { name: ui.removeConfirm(STACK, time), exact: true });
      await question.getByRole('button', { name: ui.removeYes, exact: true }).click();
      await visible(page.locator('.backups-status').getByText(ui.removed(STACK, time), { exact: true }));
      await li.waitFor({ state: 'detached' });
      assert.equal(
        (await backupsOf()).some((b) => b.id === id),
        false,
      );
    });

    test('the Backups screen shows the disk and saves the schedule', async () => {
      await page.getByRole('navigation').getByRole('link', { name: ui.nav, exact: true }).click();
      await visible(page.getByRole('heading', { name: ui.nav, level: 1 }));
      const meter = page.getByRole('meter', { name: ui.meter });
      await visible(meter);
      await hasText(page.locator('.disk-text'), ui.usage);
      const want = SCHEDULE[lang];
      await page.getByLabel(ui.mode, { exact: true }).check();
      if (want.mode === 'weekly') await page.getByLabel(ui.day, { exact: true }).selectOption(String(want.day));
      await page.getByLabel(ui.time, { exact: true }).selectOption(String(want.hour));
      await page.getByLabel(ui.count, { exact: true }).fill(String(want.retention_count));
      await page.getByLabel(ui.days, { exact: true }).fill(String(want.retention_days));
      await page.getByRole('button', { name: ui.save, exact: true }).click();
      await hasText(page.locator('.schedule-saved'), ui.saved);
      await hasText(page.locator('.schedule-next'), ui.next);
      const saved = (await api.get<BackupScheduleT>('/api/backups/schedule')).body;
      const { next_run, ...rest } = saved;
      assert.deepEqual(rest, want);
      assert.ok(next_run);
      await shoot(page, `backups-screen-${lang}`);
    });
  });
}

describe('the disk in the interface (en)', () => {
  let page: Page;

  test('DISK_WARN_PCT from the settings screen colours the bar red, and back', async () => {
    page = await logInAt(browser, problems, { url: server.url, lang: 'en', width: 1280, password: PW });
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    await page.getByRole('navigation').getByRole('link', { name: 'Settings', exact: true }).click();
    const section = page.getByRole('region', { name: 'Backups and disk space' });
    await section.getByLabel('Warn from usage, in % (DISK_WARN_PCT)').fill('1');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await hasText(page.locator('#settings-result'), /^Settings saved\./);
    await page.getByRole('navigation').getByRole('link', { name: 'Backups', exact: true }).click();
    const meter = page.getByRole('meter', { name: 'Disk usage of the backup folder' });
    await hasAttr(meter, 'data-level', 'warn');
    await visible(page.locator('.disk-warning').getByText(/^The disk is .+ full: at or above the warning level of 1%\./));
    await shoot(page, 'backups-disk-warn-en');
    assert.equal((await api.put('/api/settings', { DISK_WARN_PCT: 100 })).status, 200);
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await hasAttr(meter, 'data-level', 'ok');
    await hasCount(page.locator('.disk-warning'), 0);
  });

  test('a backup the disk cannot hold is refused with the sizes named', async () => {
    assert.equal((await api.put('/api/settings', { DISK_MIN_FREE_GB: 1_000_000 })).status, 200);
    try {
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await visible(page.locator('.disk-warning').getByText('Less than 1000000 GB is free: new backups are refused until there is room again.'));
      const now = page.getByRole('region', { name: 'Back up now' });
      await now.getByLabel('App', { exact: true }).selectOption(STACK);
      await now.getByRole('button', { name: 'Back up now', exact: true }).click();
      const alert = now.getByRole('alert');
      await visible(alert.getByText('There is not enough disk space.', { exact: true }));
      await visible(alert.getByText(/^Details: not enough disk space for a backup of .+: it needs up to .+ GB, .+ GB is free in .+ must stay free/));
      await shoot(page, 'backups-disk-full-en');
    } finally {
      assert.equal((await api.put('/api/settings', { DISK_MIN_FREE_GB: 5, DISK_WARN_PCT: 90 })).status, 200);
    }
    await page.context().close();
  });
});

describe('a viewer', () => {
  test('reads the backups, the disk and the schedule, without actions', async () => {
    const made = await api.post<{ job: { id: string } }>('/api/backups', { stack: STACK });
    assert.equal(made.status, 202, JSON.stringify(made.body));
    assert.equal((await api.waitJob(made.body.job.id, 120_000)).state, 'succeeded');
    const page = await openPage(browser, problems);
    await page.goto(server.url);
    await page.getByLabel('User name').fill('vera');
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Log in' }).click();
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    await page.getByRole('navigation').getByRole('link', { name: 'Backups', exact: true }).click();
    await visible(page.getByRole('meter', { name: 'Disk usage of the backup folder' }));
    await visible(page.locator('li.backup').first());
    await visible(page.getByText('Only administrators change the schedule.'));
    await hasCount(page.getByRole('button', { name: 'Save schedule' }), 0);
    await hasCount(page.getByRole('button', { name: /^(Verify|Restore|Delete) / }), 0);
    await hasCount(page.getByRole('link', { name: /^Download / }), 0);
    await hasCount(page.getByRole('region', { name: 'Back up now' }), 0);
    await shoot(page, 'backups-viewer');
    await page.goto(`${server.url}/apps/${STACK}#backups`);
    await visible(page.locator('li.backup').first());
    await hasCount(page.getByRole('button', { name: 'Back up now' }), 0);
    await page.context().close();
  });

  test('no console errors beyond the expected', () => {
    assert.deepEqual(problems, []);
  });
});
