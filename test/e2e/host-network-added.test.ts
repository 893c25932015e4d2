import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import type { HostNetworkT } from '../../src/shared/networks.ts';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasCount, hasText, launchBrowser, logInAt, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// The host network's "already added" badge (issue 24 item 11): the Networks screen heads its form with the
// network this host is on. In English the form is filled from it and a macvlan network on the host's
// interface is created (no container joins it, so the host's own traffic is not touched); the box then says
// "Already added". In Dutch the badge reads "Al toegevoegd" until the network is deleted there, and goes.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const NET = `kadetest-hostadd-${randomBytes(3).toString('hex')}`;

const UI = {
  en: {
    nav: 'Networks',
    added: 'Already added',
    addedHint: 'A network of Kade’s already uses this interface or subnet. You can still fill in the form with it.',
    useHint: /^A network on the host interface lets apps take their own address on your LAN \(macvlan\)\./,
    use: 'Fill in the form with this network',
    name: 'Name',
    create: 'Create network',
    created: `Network ${NET} was created.`,
  },
  nl: {
    nav: 'Netwerken',
    added: 'Al toegevoegd',
    addedHint: 'Een netwerk van Kade gebruikt deze netwerkinterface of dit subnet al. Je kunt het formulier er toch mee invullen.',
    useHint: /^Met een netwerk op de netwerkinterface van de host krijgen apps een eigen adres in je LAN \(macvlan\)\./,
    use: 'Formulier invullen met dit netwerk',
    remove: `Netwerk ${NET} verwijderen`,
    removeYes: 'Ja, verwijderen',
    removed: `Netwerk ${NET} is verwijderd.`,
  },
} as const;

let server: TestServer;
let api: ApiClient;
let browser: Browser;
let host: HostNetworkT;
const problems: string[] = [];

before(async () => {
  await requireEngine();
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  assert.equal((await api.post('/api/wizard/complete')).status, 200);
  const list = await api.get<{ host: HostNetworkT | null; host_error: string | null }>('/api/networks');
  assert.ok(list.body.host, `the host network is detected: ${list.body.host_error}`);
  host = list.body.host;
  assert.equal(host.added, false, 'no network of this Kade uses the host network yet');
  browser = await launchBrowser();
});

after(async () => {
  await api?.del(`/api/networks/${NET}`);
  await browser?.close();
  await server?.close();
  await promisify(execFile)('docker', ['network', 'rm', NET]).catch(() => undefined);
});

async function networksScreen(lang: 'en' | 'nl'): Promise<Page> {
  const page = await logInAt(browser, problems, { url: `${server.url}/networks`, lang, width: 1280, password: PW });
  await visible(page.getByRole('heading', { name: UI[lang].nav, level: 1 }));
  await visible(page.locator('.net-host').getByText(host.subnet, { exact: true }));
  return page;
}

describe('the host network box (en)', () => {
  const ui = UI.en;
  let page: Page;

  test('before any network uses it there is no badge, and the hint offers it', async () => {
    page = await networksScreen('en');
    const box = page.locator('.net-host');
    await hasCount(box.locator('.net-badge-added'), 0);
    await hasText(box.locator('.hint'), ui.useHint);
    await shoot(page, 'host-network-new-en');
  });

  test('a macvlan network made from it turns the box to "Already added"', async () => {
    await page.getByRole('button', { name: ui.use, exact: true }).click();
    await page.getByLabel(ui.name, { exact: true }).fill(NET);
    await page.getByRole('button', { name: ui.create, exact: true }).click();
    await visible(page.locator('.net-form-status').getByText(ui.created, { exact: true }), 30_000);
    const box = page.locator('.net-host');
    await hasText(box.locator('.net-badge-added'), ui.added);
    await hasText(box.locator('.hint'), ui.addedHint);
    // It can still fill the form.
    await visible(box.getByRole('button', { name: ui.use, exact: true }));
    const made = (await api.get<{ networks: { name: string; driver: string; interface: string | null }[] }>('/api/networks')).body.networks.find(
      (n) => n.name === NET,
    );
    assert.deepEqual(made && { driver: made.driver, interface: made.interface }, { driver: 'macvlan', interface: host.interface });
    await shoot(page, 'host-network-added-en');
    await page.context().close();
  });
});

describe('the host network box (nl)', () => {
  const ui = UI.nl;

  test('"Al toegevoegd" while the network exists; deleted there, the badge goes', async () => {
    const page = await networksScreen('nl');
    const box = page.locator('.net-host');
    await hasText(box.locator('.net-badge-added'), ui.added);
    await hasText(box.locator('.hint'), ui.addedHint);
    await shoot(page, 'host-network-added-nl');
    const row = page.locator(`li.net[data-network="${NET}"]`);
    await row.getByRole('button', { name: ui.remove }).click();
    await row.getByRole('button', { name: ui.removeYes }).click();
    await visible(page.locator('.net-status').getByText(ui.removed, { exact: true }), 30_000);
    await hasCount(box.locator('.net-badge-added'), 0);
    await hasText(box.locator('.hint'), ui.useHint);
    await visible(box.getByRole('button', { name: ui.use, exact: true }));
    await shoot(page, 'host-network-new-nl');
    await page.context().close();
  });
});

test('no script errors along the way', () => {
  assert.deepEqual(problems, []);
});
