import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, hasCount, hasText, launchBrowser, openPage, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

// The containers screen on the real engine: every container, the own one guarded, in both languages.
requireBuiltWeb();

const run = promisify(execFile);
const docker = async (...args: string[]) => (await run('docker', args, { timeout: 60_000 })).stdout.trim();

const PW = 'correct-horse-battery';
const IMAGE = 'kade-test/busybox:1';
const WEB = 'kadetest-ctr-e2e-web';
const OWN = 'kadetest-ctr-e2e-own';
const IDLE = 'kadetest-ctr-e2e-idle';
const STACK = 'kadetest-ctr-e2e-app';
const TALK = ['sh', '-c', 'i=0; while true; do echo "line $i"; i=$((i+1)); sleep 0.3; done'];

let server: TestServer;
let api: ApiClient;
let browser: Browser;
let page: Page;
const problems: string[] = [];

const row = (p: Page, name: string) => p.getByRole('listitem').filter({ has: p.getByRole('heading', { name: new RegExp(`^${name}`) }) });

async function logIn(p: Page, name: string): Promise<void> {
  await p.goto(server.url);
  await p.getByLabel('User name').fill(name);
  await p.getByLabel('Password').fill(PW);
  await p.getByRole('button', { name: 'Log in' }).click();
  await visible(p.getByRole('heading', { name: 'Apps', level: 1 }));
  await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Containers' }).click();
  await visible(p.getByRole('heading', { name: 'Containers', level: 1 }));
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  await docker('run', '-d', '--init', '--name', WEB, '--label', 'kade.test=1', '-p', '127.0.0.1::8080', IMAGE, ...TALK);
  const ownId = await docker('run', '-d', '--init', '--name', OWN, '--label', 'kade.test=1', IMAGE, ...TALK);
  await docker('create', '--init', '--name', IDLE, '--label', 'kade.test=1', IMAGE, 'true');
  server = await startTestServer({ kade: { ownContainerId: ownId } });
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  // An admin is led into the setup wizard until it is done; that is not what this file tests.
  await api.post('/api/wizard/complete');
  assert.equal((await api.post('/api/users', { name: 'viewer', password: PW, role: 'viewer' })).status, 201);
  const dir = join(server.baseDir, 'stacks', STACK);
  mkdirSync(dir, { recursive: true });
  const command = JSON.stringify(TALK).replaceAll('$', '$$$$');
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    [
      'services:',
      '  web:',
      `    image: ${IMAGE}`,
      '    init: true',
      '    network_mode: none',
      `    command: ${command}`,
      '    labels:',
      '      kade.test: "1"',
      '',
    ].join('\n'),
  );
  await api.acceptFiles(STACK);
  const job = await api.waitJob((await api.post(`/api/stacks/${STACK}/start`)).body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  browser = await launchBrowser();
  page = await openPage(browser, problems);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await cleanupLabelled();
});

describe('containers screen', () => {
  test('lists every container with image, ports, its app, and Kade itself without stop buttons', async () => {
    await logIn(page, 'admin');
    const web = row(page, WEB);
    await visible(web.getByText(IMAGE));
    await visible(web.getByText(/^127\.0\.0\.1:\d+→8080\/tcp$/));
    await visible(web.getByText('Not part of an app'));
    await visible(web.getByText('Running'));
    await visible(row(page, STACK).getByRole('link', { name: `Part of the app ${STACK}: go to the apps` }));
    await visible(row(page, IDLE).getByText('Created, not started'));
    await visible(row(page, IDLE).getByText('no published ports'));
    const own = row(page, OWN);
    await visible(own.getByText('Kade itself'));
    await visible(own.getByText(/cannot be stopped, restarted or deleted from here/));
    await hasCount(own.getByRole('button', { name: /^(Stop|Restart|Delete) / }), 0);
    await visible(page.getByText(/^\d+ containers on this host, \d+ running\.$/));
    await shoot(page, 'containers');
  });

  test('stop and start an unmanaged container; delete asks first and says data and image stay', async () => {
    const web = row(page, WEB);
    await web.getByRole('button', { name: `Stop ${WEB}` }).click();
    await hasText(web.getByRole('status'), `${WEB} stopped.`, 20_000);
    await visible(web.getByText('Stopped'));
    await web.getByRole('button', { name: `Start ${WEB}` }).click();
    await hasText(web.getByRole('status'), `${WEB} started.`);
    await visible(web.getByText('Running'));

    const idle = row(page, IDLE);
    await idle.getByRole('button', { name: `Delete ${IDLE}` }).click();
    await visible(idle.getByText(`Delete the container ${IDLE}? Only the container goes: its data (volumes) and its image stay.`));
    await shoot(page, 'containers-delete-confirm');
    await idle.getByRole('button', { name: 'Delete container' }).click();
    await hasCount(row(page, IDLE), 0);
    assert.match(await docker('image', 'inspect', '--format', '{{.Id}}', IMAGE), /^sha256:/);
  });

  test('details show key facts with the raw JSON folded; logs show the tail and follow new lines', async () => {
    const web = row(page, WEB);
    await web.getByRole('button', { name: `Details of ${WEB}` }).click();
    await visible(web.getByText('Restart policy'));
    await visible(web.getByText('Everything the engine knows (JSON)'));
    assert.equal(await web.locator('details.ctr-raw').getAttribute('open'), null, 'the raw JSON starts folded');
    await shoot(page, 'containers-inspect');
    await web.getByRole('button', { name: `Logs of ${WEB}` }).click();
    const log = web.getByRole('log', { name: `Log of ${WEB}` });
    await hasText(log, /line \d+/);
    const before = ((await log.textContent()) ?? '').split('\n').length;
    await web.getByLabel('Follow new lines').check();
    await eventually(async () => assert.ok(((await log.textContent()) ?? '').split('\n').length > before + 1, 'new lines arrive'), 10_000);
    await shoot(page, 'containers-logs');
    await web.getByRole('button', { name: `Logs of ${WEB}` }).click();
    await hasCount(log, 0);
  });

  test('in Dutch', async () => {
    await page.getByLabel('Language').selectOption('nl');
    await visible(page.getByRole('heading', { name: 'Containers', level: 1 }));
    await visible(row(page, WEB).getByText('Hoort niet bij een app'));
    await visible(row(page, OWN).getByText('Kade zelf'));
    await visible(row(page, STACK).getByRole('link', { name: `Hoort bij de app ${STACK}: naar de apps` }));
    await visible(row(page, WEB).getByRole('button', { name: `${WEB} stoppen` }));
    await shoot(page, 'containers-nl');
    await page.getByLabel('Taal').selectOption('en');
  });

  test('a viewer sees the list, details and logs but no action buttons', async () => {
    const viewerPage = await openPage(browser, problems);
    await logIn(viewerPage, 'viewer');
    const web = row(viewerPage, WEB);
    await visible(web.getByRole('button', { name: `Logs of ${WEB}` }));
    await hasCount(viewerPage.getByRole('button', { name: /^(Start|Stop|Restart|Delete) / }), 0);
    await shoot(viewerPage, 'containers-viewer');
    await viewerPage.context().close();
  });

  test('no page errors', () => {
    assert.deepEqual(problems, []);
  });
});
