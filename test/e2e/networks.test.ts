import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { rangeBlocks } from '../../src/shared/cidr.ts';
import { reviewNetwork } from '../../src/shared/network-review.ts';
import type { StackConfigT } from '../../src/shared/stack-config.ts';
import { freePort } from '../engine/contract-helpers.ts';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasText, launchBrowser, logInAt, openPage, removeStackContainers, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// Shared networks in the interface (issue 13), on the real engine: the Networks screen with the live review
// and the range helper, a bridge network created there, an app that joins it in its Configure tab (and is then
// listed as a member), an own address chosen with the address check, leaving, and deleting; in en and in nl.
// Each language owns one network on a subnet of 10.213.250-251.x that no host or engine network uses.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const HEX = randomBytes(3).toString('hex');
const STACK = `kadetest-netui-${HEX}`;
const exec = promisify(execFile);
/** A network the engine has that Kade did not make, taken over in the interface. */
const ENGINE_NET = `kadetest-uieng-${HEX}`;

type Lang = 'en' | 'nl';
const NETS: Record<Lang, { name: string; typed: string; subnet: string; from: string; to: string }> = {
  en: { name: `kadetest-uinet-en-${HEX}`, typed: '10.213.250.77/24', subnet: '10.213.250.0/24', from: '10.213.250.100', to: '10.213.250.150' },
  nl: { name: `kadetest-uinet-nl-${HEX}`, typed: '10.213.251.77/24', subnet: '10.213.251.0/24', from: '10.213.251.100', to: '10.213.251.150' },
};

/** What the user reads and clicks, per language. */
const UI = {
  en: {
    apps: 'Apps',
    nav: 'Networks',
    subnet: 'Subnet',
    range: 'Range',
    gateway: 'Gateway',
    iface: 'Host interface',
    hostUse: 'Fill in the form with this network',
    macvlan: (i: string) =>
      `With host interface ${i} this becomes a macvlan network: each app on it gets its own address on that network, reachable from the rest of the LAN.`,
    bridge: 'This becomes a bridge network: the apps on it reach each other, on this host only.',
    name: 'Name',
    helper: 'Work out a range from two addresses',
    from: 'First address',
    to: 'Last address',
    create: 'Create network',
    normalised: (input: string, cidr: string) => `${input} has host bits set: it is read as ${cidr}.`,
    usable: (count: number, first: string, last: string) => `${count} addresses for containers: ${first} to ${last}.`,
    use: (cidr: string) => `Use ${cidr} as range`,
    created: (name: string) => `Network ${name} was created.`,
    join: (n: string) => `Join network ${n}`,
    leave: (n: string) => `Leave network ${n}`,
    joined: 'Joined',
    notJoined: 'Not joined',
    done: (name: string) => `${name} runs with its new networks.`,
    serviceOn: 'on it, address chosen by the engine',
    serviceLine: (n: string) => `Networks: ${n}.`,
    remove: (n: string) => `Delete network ${n}`,
    removeYes: 'Yes, delete',
    removed: (n: string) => `Network ${n} was deleted.`,
  },
  nl: {
    apps: 'Apps',
    nav: 'Netwerken',
    subnet: 'Subnet',
    range: 'Bereik',
    gateway: 'Gateway',
    iface: 'Netwerkinterface van de host',
    hostUse: 'Formulier invullen met dit netwerk',
    macvlan: (i: string) =>
      `Met netwerkinterface ${i} wordt dit een macvlan-netwerk: elke app erin krijgt een eigen adres in dat netwerk, bereikbaar vanaf de rest van het LAN.`,
    bridge: 'Dit wordt een bridge-netwerk: de apps erin bereiken elkaar, alleen op deze host.',
    name: 'Naam',
    helper: 'Een bereik uitrekenen uit twee adressen',
    from: 'Eerste adres',
    to: 'Laatste adres',
    create: 'Netwerk maken',
    normalised: (input: string, cidr: string) => `In ${input} staan hostbits: het wordt gelezen als ${cidr}.`,
    usable: (count: number, first: string, last: string) => `${count} adressen voor containers: ${first} tot en met ${last}.`,
    use: (cidr: string) => `${cidr} als bereik gebruiken`,
    created: (name: string) => `Netwerk ${name} is gemaakt.`,
    join: (n: string) => `In netwerk ${n} gaan`,
    leave: (n: string) => `Uit netwerk ${n} gaan`,
    joined: 'Zit erin',
    notJoined: 'Zit er niet in',
    done: (name: string) => `${name} draait met zijn nieuwe netwerken.`,
    serviceOn: 'zit erin, adres gekozen door de engine',
    serviceLine: (n: string) => `Netwerken: ${n}.`,
    remove: (n: string) => `Netwerk ${n} verwijderen`,
    removeYes: 'Ja, verwijderen',
    removed: (n: string) => `Netwerk ${n} is verwijderd.`,
  },
} as const;

let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
let installed = false;
const problems: string[] = [];

/** The usable line the review shows for a plan, from the same shared rules the server applies. */
function usableOf(subnet: string, range = ''): { count: number; first: string; last: string } {
  const r = reviewNetwork(range ? { subnet, range } : { subnet }, { hostNetworks: [], engineNetworks: [] });
  assert.ok(r.first && r.last, JSON.stringify(r));
  return { count: r.usable, first: r.first, last: r.last };
}

const config = async () => {
  const r = await api.get<StackConfigT>(`/api/stacks/${STACK}/config`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
};

/** The network change of the Configure tab ended well (its job restarted the app); else the section's text says why. */
async function jobDone(page: Page, lang: Lang): Promise<void> {
  try {
    await hasText(page.locator('.appnet-run .configure-done'), `✓ ${UI[lang].done(STACK)}`, 60_000);
  } catch (err) {
    const shown = await page
      .locator('.configure-netsection')
      .innerText()
      .catch(() => '(no Networks section)');
    throw new Error(`the network change did not end well:\n${shown}`, { cause: err });
  }
}

const netRow = (page: Page, name: string) => page.locator(`li.net[data-network="${name}"]`);
const appNet = (page: Page, name: string) => page.locator(`li.appnet[data-network="${name}"]`);

before(async () => {
  await requireEngine();
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  assert.equal((await api.post('/api/users', { name: 'vera', password: PW, role: 'viewer' })).status, 201);
  await api.addSyncedRepo('Basic', git.url('basic'));
  const inst = await api.post<{ job: { id: string } }>('/api/store/install', {
    repo: 'basic',
    app: 'hello',
    name: STACK,
    values: { port: await freePort(), message: 'on a shared network' },
  });
  assert.equal(inst.status, 202, JSON.stringify(inst.body));
  installed = true;
  const job = await api.waitJob(inst.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  browser = await launchBrowser();
});

after(async () => {
  try {
    for (const { name } of Object.values(NETS)) {
      // Off the network first (a test that failed halfway may have left the app on it), then the network itself.
      const off = await api.post<{ job?: { id: string } }>(`/api/stacks/${STACK}/connect`, { network: name, disconnect: true });
      if (off.status === 202 && off.body.job) await api.waitJob(off.body.job.id);
      await api.del(`/api/networks/${name}`);
    }
    if (installed) {
      await api.removeApp(STACK);
    }
  } finally {
    await browser?.close();
    await server?.close();
    await git?.close();
    await removeStackContainers(STACK);
    for (const name of [...Object.values(NETS).map((n) => n.name), ENGINE_NET]) await exec('docker', ['network', 'rm', name]).catch(() => undefined);
  }
});

for (const lang of ['en', 'nl'] as const) {
  const ui = UI[lang];
  const net = NETS[lang];
  describe(`shared networks in the interface (${lang})`, () => {
    let page: Page;

    test('the Networks screen reviews a subnet while it is typed and works out a range', async () => {
      page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PW });
      await visible(page.getByRole('heading', { name: ui.apps, level: 1 }));
      await page.getByRole('navigation').getByRole('link', { name: ui.nav, exact: true }).click();
      await visible(page.getByRole('heading', { name: ui.nav, level: 1 }));
      // The host's own network heads the form; one click fills the form with it, as a macvlan network on its interface.
      const host = (await api.get<{ host: { interface: string; subnet: string; gateway: string | null } | null }>('/api/networks')).body.host;
      assert.ok(host, 'the host network is detected');
      await visible(page.locator('.net-host').getByText(host.subnet, { exact: true }));
      await page.getByRole('button', { name: ui.hostUse, exact: true }).click();
      assert.equal(await page.getByLabel(ui.subnet, { exact: true }).inputValue(), host.subnet);
      assert.equal(await page.getByLabel(ui.iface, { exact: true }).inputValue(), host.interface);
      await visible(page.getByText(ui.macvlan(host.interface), { exact: true }));
      for (const label of [ui.gateway, ui.range, ui.iface]) await page.getByLabel(label, { exact: true }).fill('');
      await visible(page.getByText(ui.bridge, { exact: true }));

      await page.getByLabel(ui.subnet, { exact: true }).fill(net.typed);
      await visible(page.locator('.net-review-warnings').getByText(ui.normalised(net.typed, net.subnet), { exact: true }));
      const whole = usableOf(net.subnet);
      await hasText(page.locator('.net-review-usable'), ui.usable(whole.count, whole.first, whole.last));

      await page.getByText(ui.helper, { exact: true }).click();
      await page.getByLabel(ui.from, { exact: true }).fill(net.from);
      await page.getByLabel(ui.to, { exact: true }).fill(net.to);
      const blocks = rangeBlocks(net.from, net.to);
      assert.ok(blocks && blocks.ruim.cidr !== blocks.krap.cidr);
      await visible(page.getByRole('button', { name: ui.use(blocks.ruim.cidr) }));
      await page.getByRole('button', { name: ui.use(blocks.krap.cidr) }).click();
      assert.equal(await page.getByLabel(ui.range, { exact: true }).inputValue(), blocks.krap.cidr);
      const inRange = usableOf(net.subnet, blocks.krap.cidr);
      await hasText(page.locator('.net-review-usable'), ui.usable(inRange.count, inRange.first, inRange.last));
      await shoot(page, `networks-review-${lang}`);
    });

    test('a bridge network is created and listed with its normalised subnet and range', async () => {
      await page.getByLabel(ui.name, { exact: true }).fill(net.name);
      await page.getByRole('button', { name: ui.create, exact: true }).click();
      await visible(page.locator('.net-form-status').getByText(ui.created(net.name), { exact: true }));
      await visible(page.locator('.net-form-status').getByText(ui.normalised(net.typed, net.subnet), { exact: true }));
      const row = netRow(page, net.name);
      await visible(row.getByText(net.subnet, { exact: true }));
      await visible(row.getByText(rangeBlocks(net.from, net.to)?.krap.cidr ?? '?', { exact: true }));
      await visible(row.getByText('bridge', { exact: true }));
      // The form starts empty again.
      assert.equal(await page.getByLabel(ui.subnet, { exact: true }).inputValue(), '');
      const listed = (await api.get<{ networks: { name: string; subnet: string; kind: string }[] }>('/api/networks')).body.networks.find(
        (n) => n.name === net.name,
      );
      assert.deepEqual(listed && { subnet: listed.subnet, kind: listed.kind }, { subnet: net.subnet, kind: 'app' });
      await shoot(page, `networks-created-${lang}`);
    });

    test('the app joins the network in its Configure tab and is then listed as a member', async () => {
      await page.goto(`${server.url}/apps/${STACK}#configure`);
      const card = appNet(page, net.name);
      await hasText(card.locator('.appnet-state'), ui.notJoined);
      await card.getByRole('button', { name: ui.join(net.name), exact: true }).click();
      await jobDone(page, lang);
      await hasText(card.locator('.appnet-state'), ui.joined);
      await hasText(card.locator('li[data-service="web"] .appnet-service-state'), ui.serviceOn);
      await visible(page.locator('.configure-service[data-service="web"]').getByText(ui.serviceLine(net.name), { exact: true }));
      assert.deepEqual((await config()).networks, [net.name]);
      await shoot(page, `networks-joined-${lang}`);

      await page.getByRole('navigation').getByRole('link', { name: ui.nav, exact: true }).click();
      await visible(netRow(page, net.name).locator('.net-members').getByRole('link', { name: STACK, exact: true }));
    });

    if (lang === 'en') {
      test('a network in use is not deleted: the refusal names the app, linked to it', async () => {
        const row = netRow(page, net.name);
        await row.getByRole('button', { name: ui.remove(net.name) }).click();
        await row.getByRole('button', { name: ui.removeYes }).click();
        await visible(row.getByRole('alert').getByText(`Network ${net.name} is in use by ${STACK}: take those apps off it first.`));
        await visible(row.locator('.net-in-use').getByRole('link', { name: STACK, exact: true }));
        await shoot(page, 'networks-in-use-en');
      });

      test('the address check inside a network says why an address cannot be used and offers a free one', async () => {
        const row = netRow(page, net.name);
        await row.getByText('Check an address', { exact: true }).click();
        const outside = net.from.replace(/\d+$/, '5');
        await row.getByLabel(`Address on ${net.name}`).fill(outside);
        const status = row.locator('.ip-check');
        await visible(status.getByText(`${outside} cannot be used:`, { exact: true }));
        await visible(status.getByText(`${outside} lies outside the range ${rangeBlocks(net.from, net.to)?.krap.cidr} that the network hands out.`));
        const take = status.getByRole('button', { name: /^Take / });
        const proposal = ((await take.textContent()) ?? '').replace(/^Take /, '');
        await take.click();
        assert.equal(await row.getByLabel(`Address on ${net.name}`).inputValue(), proposal);
        await visible(status.getByText(new RegExp(`^${proposal.replaceAll('.', '\\.')} is free`)));
      });

      test('a service gets its own address with the live check: taken, its own, free', async () => {
        const krap = rangeBlocks(net.from, net.to)?.krap.cidr ?? '?';
        const members = (await api.get<{ networks: { name: string; members: { stack: string | null; ip: string | null }[] }[] }>('/api/networks')).body
          .networks;
        const current = members.find((n) => n.name === net.name)?.members.find((m) => m.stack === STACK)?.ip;
        assert.ok(current, 'the engine gave the app an address on the network');
        await page.goto(`${server.url}/apps/${STACK}#configure`);
        const card = appNet(page, net.name);
        await card.getByRole('button', { name: `Own address for web on ${net.name}` }).click();
        const field = card.getByLabel(`Address of web on ${net.name}`);
        const status = card.locator('.ip-check');
        const outside = net.from.replace(/\d+$/, '5');
        await field.fill(outside);
        await visible(status.getByText(`${outside} cannot be used:`, { exact: true }));
        await visible(status.getByText(`${outside} lies outside the range ${krap} that the network hands out.`));
        await visible(status.getByRole('button', { name: /^Take \d+\.\d+\.\d+\.\d+$/ }));
        // The address the app holds now is its own, not a conflict.
        await field.fill(current);
        await visible(status.getByText(`${current} is this app’s own address there.`, { exact: true }));
        // An address in the middle of the range: not the block's first one, which this engine keeps for itself.
        const wanted = krap.replace(/\.(\d+)\/\d+$/, (_m, last: string) => `.${Number(last) + 8}`);
        await field.fill(wanted);
        await visible(status.getByText(new RegExp(`^${wanted.replaceAll('.', '\\.')} is free`)));
        await card.getByRole('button', { name: 'Use this address', exact: true }).click();
        await jobDone(page, lang);
        await hasText(card.locator('li[data-service="web"] .appnet-service-state'), `on it, own address ${wanted}`);
        const web = (await config()).services.find((s) => s.name === 'web');
        assert.deepEqual(web?.networks, [{ network: net.name, ip: wanted }]);
        await shoot(page, 'networks-own-address-en');
      });
    }

    test('the app leaves the network, which is then deleted with a confirmation', async () => {
      await page.goto(`${server.url}/apps/${STACK}#configure`);
      const card = appNet(page, net.name);
      await hasText(card.locator('.appnet-state'), ui.joined);
      await card.getByRole('button', { name: ui.leave(net.name), exact: true }).click();
      await jobDone(page, lang);
      await hasText(card.locator('.appnet-state'), ui.notJoined);
      assert.deepEqual((await config()).networks, []);

      await page.getByRole('navigation').getByRole('link', { name: ui.nav, exact: true }).click();
      const row = netRow(page, net.name);
      await row.getByRole('button', { name: ui.remove(net.name) }).click();
      await row.getByRole('button', { name: ui.removeYes }).click();
      await visible(page.locator('.net-status').getByText(ui.removed(net.name), { exact: true }));
      await row.waitFor({ state: 'detached' });
      await page.context().close();
    });
  });
}

describe('a network of the engine', () => {
  test('is taken over from the Networks screen and can then be deleted there', async () => {
    await exec('docker', ['network', 'create', '--label', 'kade.test=1', '--subnet', '10.213.253.0/24', ENGINE_NET]);
    const page = await logInAt(browser, problems, { url: server.url, lang: 'en', width: 1280, password: PW });
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    await page.goto(`${server.url}/networks`);
    const row = netRow(page, ENGINE_NET);
    await visible(row.getByText('Not Kade’s', { exact: true }));
    await row.getByRole('button', { name: `Take over network ${ENGINE_NET}` }).click();
    await visible(page.locator('.net-status').getByText(`Network ${ENGINE_NET} is now one of Kade’s networks; apps can join it.`, { exact: true }));
    await visible(row.getByText('App network', { exact: true }));
    await visible(row.getByText('10.213.253.0/24', { exact: true }));
    const settings = await api.get<{ APP_NETWORKS: string[] }>('/api/settings');
    assert.ok(settings.body.APP_NETWORKS.includes(ENGINE_NET), JSON.stringify(settings.body.APP_NETWORKS));

    await row.getByRole('button', { name: `Delete network ${ENGINE_NET}` }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await visible(page.locator('.net-status').getByText(`Network ${ENGINE_NET} was deleted.`, { exact: true }));
    await row.waitFor({ state: 'detached' });
    await assert.rejects(exec('docker', ['network', 'inspect', ENGINE_NET]));
    await page.context().close();
  });
});

describe('a viewer', () => {
  test('reads the list from its address but gets no menu entry and no actions', async () => {
    const page = await openPage(browser, problems);
    await page.goto(server.url);
    await page.getByLabel('User name').fill('vera');
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Log in' }).click();
    await visible(page.getByRole('heading', { name: 'Apps', level: 1 }));
    assert.equal(await page.getByRole('navigation').getByRole('link', { name: 'Networks', exact: true }).count(), 0);
    await page.goto(`${server.url}/networks`);
    await visible(page.getByRole('heading', { name: 'Networks', level: 1 }));
    await visible(page.locator('li.net').first());
    assert.equal(await page.getByRole('heading', { name: 'New network' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Delete network / }).count(), 0);
    assert.equal(await page.getByText('Check an address').count(), 0);
    await shoot(page, 'networks-viewer');
    await page.context().close();
  });

  test('no page errors', () => {
    assert.deepEqual(problems, []);
  });
});
