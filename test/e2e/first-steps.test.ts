// A newcomer follows README's "First steps" (issue 24 item 13): `npm run examples:serve`, the first account,
// the setup wizard (which offers the project's public repo by its https address; in Dutch too) with the
// printed address, the store, an installed example app that answers at its Open link.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { PROJECT_REPO_URL } from '../../src/shared/project.ts';
import { freePort } from '../engine/contract-helpers.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { examplesUrl, serveExamples, stopExamplesServers } from '../helpers/examples-serve.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasText, launchBrowser, openPage, requireBuiltWeb, shoot, visible } from './web-helpers.ts';

requireBuiltWeb();

const execFileP = promisify(execFile);
const PW = 'correct-horse-battery';
// The example's image, stood in for by a busybox web server built here (the test host has no internet).
const WHOAMI = 'traefik/whoami:v1.10';
const MARKER = 'kade first steps';
let madeImage = false;
let repoUrl = '';
let server: TestServer;
let browser: Browser;
let page: Page;
let build: string;
const problems: string[] = [];

before(async () => {
  await requireEngine();
  const readme = readFileSync('README.md', 'utf8');
  assert.match(readme, /`npm run examples:serve`/, 'README names the command');
  assert.match(readme, /folder with the apps `apps`/, 'README names the folder to enter');
  const served = await serveExamples({ EXAMPLES_PORT: '0' });
  repoUrl = examplesUrl(served.out) ?? '';
  assert.ok(repoUrl, served.out);
  const present = await execFileP('docker', ['image', 'inspect', WHOAMI]).then(
    () => true,
    () => false,
  );
  if (!present) {
    build = mkdtempSync(join(tmpdir(), 'kade-whoami-'));
    writeFileSync(join(build, 'index.html'), `${MARKER}\n`);
    writeFileSync(join(build, 'Dockerfile'), 'FROM kade-test/busybox:1\nCOPY index.html /www/index.html\nCMD ["httpd", "-f", "-p", "80", "-h", "/www"]\n');
    await execFileP('docker', ['build', '--quiet', '--label', 'kade.test=1', '-t', WHOAMI, build], { timeout: 120_000 });
    madeImage = true;
  }
  server = await startTestServer();
  browser = await launchBrowser();
  page = await openPage(browser, problems);
});

after(async () => {
  await browser?.close();
  await server?.close();
  stopExamplesServers();
  await cleanupLabelled();
  if (madeImage) await execFileP('docker', ['rmi', '--force', WHOAMI]).catch(() => undefined);
  if (build) rmSync(build, { recursive: true, force: true });
});

const stepHeading = (name: string) => page.getByRole('heading', { name, level: 2 });

test('the first account leads into the wizard, whose repo step offers the public repo by its https address', async () => {
  await page.goto(server.url);
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(PW);
  await page.getByLabel('Repeat password').fill(PW);
  await page.getByRole('button', { name: 'Create account' }).click();
  await visible(stepHeading('Folders'));
  await page.getByRole('button', { name: 'Next' }).click();
  await visible(stepHeading('Template repo'));
  await visible(page.getByText(`Kade's own example apps are in its public repository, ${PROJECT_REPO_URL}, in the folder examples/apps.`));
  await page.getByRole('button', { name: 'Use the example apps' }).click();
  assert.equal(await page.getByLabel('Repository address').inputValue(), PROJECT_REPO_URL);
  assert.equal(await page.getByLabel('Branch').inputValue(), 'main');
  assert.equal(await page.getByLabel('Folder with the apps').inputValue(), 'examples/apps');
  await visible(page.getByText(/Run npm run examples:serve in that checkout and use the address it prints, branch main, folder apps\./));
  // The intro counts the steps the stepper shows.
  assert.equal(await page.locator('.wizard-steps li').count(), 4);
  await hasText(page.locator('.page-intro'), /^Setting up takes 4 short steps: /);
  await shoot(page, 'first-steps-wizard-en');

  await page.getByLabel('Language').selectOption('nl');
  await visible(stepHeading('Sjabloonrepo'));
  await visible(page.getByText(`De voorbeeldapps van Kade staan in zijn openbare repository, ${PROJECT_REPO_URL}, in de map examples/apps.`));
  await visible(page.getByRole('button', { name: 'Voorbeeldapps gebruiken' }));
  await hasText(page.locator('.page-intro'), /^Het instellen gaat in 4 korte stappen: /);
  // The button says what it does in the title's words: the setting up is skipped, not an installation.
  await visible(page.getByRole('button', { name: 'Instellen overslaan' }));
  await shoot(page, 'first-steps-wizard-nl');
  await page.getByLabel('Taal').selectOption('en');
});

test('with the address examples:serve printed, the sync fetches the examples and whoami installs and answers', async () => {
  await page.getByLabel('Repository address').fill(repoUrl);
  await page.getByLabel('Folder with the apps').fill('apps');
  await page.getByRole('button', { name: 'Next' }).click();
  await visible(page.getByRole('status').filter({ hasText: 'All template repos were fetched.' }), 60_000);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: 'Go to the apps' }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Store', exact: true }).click();
  await page.getByRole('link', { name: 'Install Whoami' }).click();
  await page.getByLabel('Web port', { exact: true }).fill(String(await freePort()));
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await hasText(page.locator('.job-progress-state'), 'Done', 120_000);
  const open = page.getByRole('link', { name: /^Open http:\/\// });
  await visible(open);
  const href = (await open.getAttribute('href')) ?? '';
  const answer = await fetch(href, { signal: AbortSignal.timeout(10_000) });
  assert.equal((await answer.text()).trim(), MARKER);
  await shoot(page, 'first-steps-installed');
  assert.deepEqual(problems, []);
});
