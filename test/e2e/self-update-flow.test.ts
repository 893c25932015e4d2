// The "Update Kade" panel when Kade can update itself (issue 24 item 11): Kade runs from its image in a local
// registry as a compose project, like install.sh sets it up (test/helpers/self-update-kade.ts). In English the
// panel offers v0.1.01, the update runs with its progress, Kade is recreated and answers its health check, and the
// panel shows the new version, the done change and a way back. In Dutch a v0.1.02 whose server never starts is
// found with "check now", updated to, and rolled back by the helper when its health check stays silent; the panel
// says so. Each outcome is read in the other language too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type SelfUpdateKade, startSelfUpdateKade } from '../helpers/self-update-kade.ts';
import { hasCount, hasText, launchBrowser, logInAt, shoot, visible } from './web-helpers.ts';

// The interface under test is the one in Kade's image (built from this work tree), not dist/web.
const PW = 'correct-horse-battery';
/** Kade is recreated, or tried and rolled back after the helper's wait: the panel waits for that. */
const RECREATED_MS = 150_000;

const UI = {
  en: {
    nav: 'Settings',
    panel: 'Update Kade',
    available: 'an update is available',
    upToDate: 'Kade is up to date',
    updateTo: (v: string) => `Update now to ${v}`,
    confirm: (v: string) => `Update Kade to ${v}?`,
    yes: 'Update now',
    running: 'Updating Kade',
    restarting: 'Kade is being recreated; waiting for it to answer again…',
    done: (from: string, to: string) => `Last change: ${from} → ${to}, done.`,
    rolledBack: (from: string, to: string) => `${to} did not come up; the helper rolled back to ${from}.`,
    rollbackTo: (v: string) => `Roll back to ${v}`,
    checkNow: 'Check now',
  },
  nl: {
    nav: 'Instellingen',
    panel: 'Kade bijwerken',
    available: 'er is een update',
    upToDate: 'Kade is bijgewerkt',
    updateTo: (v: string) => `Nu bijwerken naar ${v}`,
    confirm: (v: string) => `Kade bijwerken naar ${v}?`,
    yes: 'Nu bijwerken',
    running: 'Kade wordt bijgewerkt',
    restarting: 'Kade wordt opnieuw aangemaakt; wachten tot het weer antwoordt…',
    done: (from: string, to: string) => `Laatste wijziging: ${from} → ${to}, klaar.`,
    rolledBack: (from: string, to: string) => `${to} kwam niet op; de hulpcontainer zette Kade terug op ${from}.`,
    rollbackTo: (v: string) => `Terugzetten naar ${v}`,
    checkNow: 'Nu controleren',
  },
} as const;
type Lang = keyof typeof UI;
/** The text starts with `text` (the moment follows it). */
const startsWith = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

let kade: SelfUpdateKade;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  kade = await startSelfUpdateKade({ project: 'kadetest-selfupdate-web', tags: ['v0.1.00', 'v0.1.01'], healthSeconds: 45 });
  const api = new ApiClient(kade.url);
  await api.loginAs('admin', PW);
  assert.equal((await api.post('/api/wizard/complete')).status, 200);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await kade?.close();
  await cleanupLabelled();
});

async function panelIn(lang: Lang) {
  const page = await logInAt(browser, problems, { url: kade.url, lang, width: 1280, password: PW });
  await page
    .getByRole('navigation', { name: lang === 'nl' ? 'Hoofdmenu' : 'Main' })
    .getByRole('link', { name: UI[lang].nav, exact: true })
    .click();
  const panel = page.getByRole('region', { name: UI[lang].panel });
  await visible(panel);
  return { page, panel, facts: panel.locator('.self-update-facts dd'), last: panel.locator('.self-update-last') };
}

/**
 * At phone width each fact reads on one line: the version numbers and the moment of the check. A label column
 * as wide as its longest label ("Newest (Stable: releases only)") once left the values a few letters a line.
 */
async function factsOnOneLine(page: Page, panel: Locator): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const lines = await panel.locator('.self-update-facts dd').evaluateAll((dds) =>
      dds.slice(0, 3).map((dd) => {
        const r = document.createRange();
        r.selectNodeContents(dd);
        // The code box and the text beside it sit a pixel or two apart on one line.
        let lines = 0;
        let last = Number.NEGATIVE_INFINITY;
        for (const top of [...r.getClientRects()].map((x) => x.top).sort((a, b) => a - b)) {
          if (top > last + 8) lines++;
          last = Math.max(last, top);
        }
        return { text: dd.textContent, lines };
      }),
    );
    assert.ok(
      lines.every((l) => l.lines === 1),
      `lines per fact at 390 px: ${JSON.stringify(lines)}`,
    );
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

/** Update now → the question → yes; the job's progress shows, then the wait for the recreated Kade. */
async function update(page: Page, lang: Lang, to: string): Promise<void> {
  const ui = UI[lang];
  const panel = page.getByRole('region', { name: ui.panel });
  await panel.getByRole('button', { name: ui.updateTo(to), exact: true }).click();
  await visible(panel.getByText(ui.confirm(to), { exact: true }));
  await panel.getByRole('button', { name: ui.yes, exact: true }).click();
  await visible(panel.getByText(ui.running, { exact: false }));
  await visible(panel.getByText(ui.restarting, { exact: true }), 60_000);
}

describe('an update that comes up (en)', () => {
  const ui = UI.en;
  let page: Page;

  test('the panel offers the newer version in the registry', async () => {
    const p = await panelIn('en');
    page = p.page;
    await hasText(p.facts.nth(0), 'v0.1.00');
    await hasText(p.facts.nth(1), `v0.1.01 · ${ui.available}`);
    await hasText(p.facts.last(), `${kade.image}:v0.1.00`);
    assert.notEqual(await p.panel.getByRole('button', { name: ui.updateTo('v0.1.01') }).getAttribute('aria-disabled'), 'true');
    await hasCount(p.panel.getByRole('button', { name: /^Roll back/ }), 0);
    await factsOnOneLine(page, p.panel);
    await shoot(page, 'self-update-available-en');
  });

  test('update: progress, Kade recreated, its health check answered, the panel on the new version', async () => {
    await update(page, 'en', 'v0.1.01');
    await shoot(page, 'self-update-restarting-en');
    const panel = page.getByRole('region', { name: ui.panel });
    await hasText(panel.locator('.self-update-last'), startsWith(ui.done('v0.1.00', 'v0.1.01')), RECREATED_MS);
    assert.equal(await kade.health(), 'v0.1.01');
    assert.equal(await kade.envTag(), 'v0.1.01');
    await hasText(panel.locator('.self-update-facts dd').nth(0), 'v0.1.01');
    await hasText(panel.locator('.self-update-facts dd').nth(1), `v0.1.01 · ${ui.upToDate}`);
    await hasCount(panel.getByRole('button', { name: /^Update now/ }), 0);
    await visible(panel.getByRole('button', { name: ui.rollbackTo('v0.1.00'), exact: true }));
    await hasCount(panel.getByText(ui.restarting), 0);
    await shoot(page, 'self-update-done-en');
    await page.context().close();
  });
});

describe('an update that never answers is rolled back (nl)', () => {
  const ui = UI.nl;
  let page: Page;

  test('the done change reads in Dutch; "check now" finds the new tag', async () => {
    // Its server never runs: the new container starts, but /healthz stays silent.
    await kade.push('v0.1.02', ['sleep', '3600']);
    const p = await panelIn('nl');
    page = p.page;
    await hasText(p.last, startsWith(ui.done('v0.1.00', 'v0.1.01')));
    await hasText(p.facts.nth(0), 'v0.1.01');
    await p.panel.getByRole('button', { name: ui.checkNow, exact: true }).click();
    await hasText(p.facts.nth(1), `v0.1.02 · ${ui.available}`);
    await visible(p.panel.getByRole('button', { name: ui.rollbackTo('v0.1.00'), exact: true }));
    await shoot(page, 'self-update-available-nl');
  });

  test('the update to it is tried and rolled back by the helper; the panel says so', async () => {
    await update(page, 'nl', 'v0.1.02');
    const panel = page.getByRole('region', { name: ui.panel });
    await hasText(panel.locator('.self-update-last'), startsWith(ui.rolledBack('v0.1.01', 'v0.1.02')), RECREATED_MS);
    assert.equal(await kade.health(), 'v0.1.01');
    assert.equal(await kade.envTag(), 'v0.1.01');
    await hasText(panel.locator('.self-update-facts dd').nth(0), 'v0.1.01');
    // Still offered: the newest version is what it is, and the admin may try again.
    await hasText(panel.locator('.self-update-facts dd').nth(1), `v0.1.02 · ${ui.available}`);
    await factsOnOneLine(page, panel);
    await shoot(page, 'self-update-rolled-back-nl');
    await page.context().close();
  });

  test('the roll-back reads in English too', async () => {
    const p = await panelIn('en');
    await hasText(p.last, startsWith(UI.en.rolledBack('v0.1.01', 'v0.1.02')));
    await p.page.context().close();
  });
});

test('no script errors along the way', () => {
  assert.deepEqual(problems, []);
});
