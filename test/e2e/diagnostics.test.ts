// The Diagnostics screen as an admin sees it, in English and Dutch: the doctor's checks with their
// status, and a failing one (BASE_DIR's stacks folder empty in "Kade's container" while the host has
// an app there) showing its fix with a copy button. Kade's own container is stood in for by a created
// test container whose bind mount the doctor reads, as in test/engine/doctor.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasText, isFocused, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

requireBuiltWeb();

const run = promisify(execFile);
const PASSWORD = 'correct-horse-battery';
const OWN = 'kadetest-diagnostics-own';
const WORKDIR = '/opt/kadetest-diagnostics';
// `docker compose` or `docker-compose`: whichever the engine's host has.
const FIX = new RegExp(`^cd ${WORKDIR} && docker[ -]compose up -d --force-recreate$`);
const removeOwn = () => run('docker', ['rm', '-f', OWN]).catch(() => undefined);

const root = mkdtempSync(join(tmpdir(), 'kade-diagnostics-'));
const hostBase = join(root, 'host-base');
const inner = join(root, 'inner-base');
let server: TestServer;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  await requireEngine();
  await removeOwn();
  mkdirSync(join(hostBase, 'stacks', 'web'), { recursive: true });
  mkdirSync(join(hostBase, 'appdata'));
  mkdirSync(join(hostBase, 'backups'));
  writeFileSync(join(hostBase, 'stacks', 'web', 'compose.yaml'), 'services: {}\n');
  const { stdout } = await run('docker', [
    'create',
    '--label',
    'kade.test=1',
    '--label',
    `com.docker.compose.project.working_dir=${WORKDIR}`,
    '--name',
    OWN,
    '-v',
    `${hostBase}:${inner}`,
    'kade-test/busybox:1',
    'true',
  ]);
  server = await startTestServer({ baseDir: inner, stateDir: join(root, 'state'), kade: { ownContainerId: stdout.trim() } });
  const api = new ApiClient(server.url);
  await api.loginAs('admin', PASSWORD);
  // Without this, an admin is led into the setup wizard instead of the page asked for.
  assert.equal((await api.post('/api/wizard/complete')).status, 200);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await removeOwn();
  rmSync(root, { recursive: true, force: true });
});

async function openDiagnostics(lang: 'en' | 'nl', nav: string, heading: string): Promise<Page> {
  const page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PASSWORD });
  await page
    .getByRole('navigation', { name: lang === 'nl' ? 'Hoofdmenu' : 'Main' })
    .getByRole('link', { name: nav })
    .click();
  await visible(page.getByRole('heading', { name: heading, level: 1 }));
  await isFocused(page.getByRole('heading', { name: heading, level: 1 }));
  return page;
}

test('an admin opens Diagnostics from the menu: the failing mount check shows the route back, copied with one click', async () => {
  const page = await openDiagnostics('en', 'Diagnostics', 'Diagnostics');
  // The stacks folder empty inside, and BASE_DIR fed from another host folder than its own path.
  await hasText(page.locator('.doctor-summary'), /^2 errors found\./);
  const failing = page.locator(`.doctor-check[data-check="mount:${inner}/stacks"]`);
  await visible(failing);
  await hasText(failing.locator('.doctor-status'), 'Error');
  await hasText(failing.locator('.doctor-message'), /is empty in the container while the host has 1 entry/);
  await hasText(failing.locator('.doctor-fix-text'), FIX);
  await hasText(page.locator('.doctor-check[data-check="engine"] .doctor-status'), 'OK');
  // The verdicts on the folders under LIBRARY_DIR and the store count are there too.
  await visible(page.locator('.doctor-check[data-check="stacks"]'));
  await hasText(page.locator('.doctor-check[data-check="store"] .doctor-message'), /^Apps in the store cache: 0\./);
  await failing.getByRole('button', { name: 'Copy' }).click();
  await hasText(failing.locator('.doctor-copied'), /^(Copied|Copy failed; select the text instead)$/);
  await shoot(page, 'diagnostics');

  // Run again after the folder is there inside too: its error is gone.
  mkdirSync(join(inner, 'stacks', 'web'));
  writeFileSync(join(inner, 'stacks', 'web', 'compose.yaml'), 'services: {}\n');
  await page.getByRole('button', { name: 'Run again' }).click();
  await hasText(page.locator('.doctor-summary'), /^1 error found\./);
  await hasText(failing.locator('.doctor-status'), 'OK');
  assert.equal(await failing.locator('.doctor-fix').count(), 0);
  rmSync(join(inner, 'stacks', 'web'), { recursive: true });
  await page.context().close();
});

test('in Dutch the screen is Diagnose, with the fix of the failing check', async () => {
  const page = await openDiagnostics('nl', 'Diagnose', 'Diagnose');
  await hasText(page.locator('.doctor-summary'), /^2 fouten gevonden\./);
  const failing = page.locator(`.doctor-check[data-check="mount:${inner}/stacks"]`);
  await hasText(failing.locator('.doctor-status'), 'Fout');
  await hasText(failing.locator('.doctor-head strong'), 'Gekoppelde map');
  await hasText(failing.locator('.doctor-fix-label'), 'Oplossing:');
  await hasText(failing.locator('.doctor-fix-text'), FIX);
  // The findings themselves are Dutch too, the folder verdicts under LIBRARY_DIR included.
  await hasText(
    failing.locator('.doctor-message'),
    /is leeg in de container terwijl de host 1 item heeft: de map van de host is niet in de container van Kade gekoppeld$/,
  );
  await hasText(page.locator('.doctor-check[data-check="store"] .doctor-message'), /^Apps in de winkelcache: 0\. Voeg een sjabloonrepository toe/);
  await hasText(page.locator('.doctor-check[data-check="account"] .doctor-message'), /^(Kade draait als uid \d+|SVC_UID is)/);
  const english = /\b(the|is missing|entries|free space|in use|not an app)\b/;
  for (const text of await page.locator('.doctor-message, .doctor-details li').allTextContents()) assert.doesNotMatch(text, english, text);
  await visible(failing.getByRole('button', { name: 'Kopiëren' }));
  await visible(page.getByRole('button', { name: 'Opnieuw controleren' }));
  await shoot(page, 'diagnostics-nl');
  await page.context().close();
  assert.deepEqual(problems, []);
});

test('started from a checkout (no container of its own), no finding speaks of a container, in nl or en', async () => {
  const checkout = await startTestServer({ baseDir: join(root, 'checkout-base'), stateDir: join(root, 'checkout-state'), kade: { ownContainerId: null } });
  try {
    const api = new ApiClient(checkout.url);
    await api.loginAs('admin', PASSWORD);
    assert.equal((await api.post('/api/wizard/complete')).status, 200);
    for (const [lang, nav, own] of [
      ['en', 'Diagnostics', 'Kade does not run in a container (started from a checkout)'],
      ['nl', 'Diagnose', 'Kade draait niet in een container (gestart vanuit een checkout)'],
    ] as const) {
      const page = await logInAt(browser, problems, { url: `${checkout.url}/diagnostics`, lang, width: 1280, password: PASSWORD });
      await visible(page.getByRole('heading', { name: nav, level: 1 }));
      await hasText(page.locator('.doctor-check[data-check="own_container"] .doctor-message'), own);
      const mounts = page.locator('.doctor-check[data-check^="mount:"] .doctor-message');
      await visible(mounts);
      for (const text of await mounts.allTextContents()) assert.doesNotMatch(text, /container/i, text);
      assert.match((await mounts.first().textContent()) ?? '', lang === 'nl' ? /waar Kade draait/ : /where Kade runs/);
      // The summary counts in words, singular for one: "1 warning.", never "1 warning(s).".
      const warns = await page.locator('.doctor-check.doctor-warn').count();
      const [one, many] = lang === 'nl' ? ['waarschuwing', 'waarschuwingen'] : ['warning', 'warnings'];
      const summary = (await page.locator('.doctor-summary').textContent()) ?? '';
      if (warns > 0) assert.ok(summary.endsWith(` ${warns} ${warns === 1 ? one : many}.`), summary);
      await shoot(page, `diagnostics-checkout-${lang}`);
      await page.context().close();
    }
  } finally {
    await checkout.close();
  }
  assert.deepEqual(problems, []);
});
