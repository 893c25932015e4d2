import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Browser, type BrowserContext, type ConsoleMessage, chromium, type Locator, type Page, type Request } from 'playwright-core';

const SHOTS = 'test-results/screenshots';
const LAUNCH = {
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
};

/** The browser tier tests what users get, the built interface; without a build it fails up front, not test by test. */
export function requireBuiltWeb(): void {
  if (!existsSync('dist/web/index.html')) {
    throw new Error('dist/web is not built: run `npm run build` before the browser tests');
  }
}

/** Debian's Chromium, headless and quiet; the screenshot folder exists once it runs. */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch(LAUNCH);
}

/**
 * Chromium aborts a navigation under way when the host's network changes (net::ERR_NETWORK_CHANGED, then a navigation
 * to its error page); the other test lane making or removing a Docker network is such a change. Kade had no part in
 * it, so a navigation that failed that way is made once more; any other failure stays a failure.
 */
function retryNavigationOnNetworkChange(page: Page): void {
  const goto = page.goto.bind(page);
  const changed = (e: unknown) => /ERR_NETWORK_CHANGED|interrupted by another navigation to "chrome-error:/.test(String((e as Error)?.message ?? e));
  page.goto = async (url, opts) => {
    try {
      return await goto(url, opts);
    } catch (e) {
      if (!changed(e)) throw e;
      return goto(url, opts);
    }
  };
}

/**
 * Collects the page's errors into `problems`, which each file asserts empty at the end. Refused
 * requests are logged by the browser as failed resources; the tests provoke them, so they are expected.
 */
export function watchPage(page: Page, problems: string[], describe = (m: ConsoleMessage) => `console: ${m.text()}`): void {
  page.setDefaultTimeout(10_000);
  retryNavigationOnNetworkChange(page);
  // The requests under way, with when they were sent and their outcome so far: a time-out in visible() lists them.
  const requests = new Map<Request, string>();
  inFlight.set(page, requests);
  const t0 = Date.now();
  page.on('request', (r) => requests.set(r, `${r.method()} ${r.url()} (sent at +${Date.now() - t0} ms)`));
  page.on('requestfinished', (r) => requests.delete(r));
  page.on('requestfailed', (r) => requests.set(r, `${requests.get(r) ?? r.url()}: failed, ${r.failure()?.errorText ?? '?'}`));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(describe(m));
    // Kade's own warnings (a retried screen load) are not failures, but the log should show them.
    else if (m.type() === 'warning' && m.text().startsWith('kade:')) console.log(`browser ${page.url()}: ${m.text()}`);
  });
}

/** A watched page in a fresh context, in English (the language switch is tested on purpose) at the wide size. */
export async function openPage(browser: Browser, problems: string[], describe?: (m: ConsoleMessage) => string): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  watchPage(page, problems, describe);
  return page;
}

const LOGIN = {
  en: { user: 'User name', pw: 'Password', login: 'Log in' },
  nl: { user: 'Gebruikersnaam', pw: 'Wachtwoord', login: 'Inloggen' },
};

/** A watched page in a fresh context with the browser language `lang` at `width`, logged in as admin at `url`. */
export async function logInAt(
  browser: Browser,
  problems: string[],
  opts: { url: string; lang: 'en' | 'nl'; width: number; password: string; context?: BrowserContext },
): Promise<Page> {
  const context = opts.context ?? (await browser.newContext({ locale: opts.lang === 'nl' ? 'nl-NL' : 'en-US', viewport: { width: opts.width, height: 900 } }));
  const page = await context.newPage();
  watchPage(page, problems);
  await page.goto(opts.url);
  const t = LOGIN[opts.lang];
  await page.getByLabel(t.user).fill('admin');
  await page.getByLabel(t.pw).fill(opts.password);
  await page.getByRole('button', { name: t.login }).click();
  return page;
}

/** Full-page screenshots at a wide and at a phone width; the page is left at the wide width. */
export async function shoot(page: Page, name: string): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    // Two frames at the new width first: a part that becomes a layer of its own only there (the buttons under a
    // compose text that scrolls sideways at 390 px) was otherwise caught unpainted now and then, one flat colour.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/**
 * Retries an assertion until it holds or the time is up; playwright-core has
 * no `expect`, and the interface changes asynchronously.
 */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const inFlight = new WeakMap<Page, Map<Request, string>>();

/** Waits for the first match to show; on time-out the error carries what the page showed instead, so a CI log says why. */
export async function visible(l: Locator, timeout = 10_000): Promise<void> {
  try {
    await l.first().waitFor({ state: 'visible', timeout });
  } catch (err) {
    const page = l.page();
    const shown = await page
      .locator('body')
      .innerText({ timeout: 1000 })
      .catch(() => '(the page could not be read)');
    const requests = [...(inFlight.get(page)?.values() ?? [])];
    const pending = requests.length > 0 ? `\n--- requests not finished (or failed):\n${requests.join('\n')}` : '\n--- no request unfinished';
    // A new error: node:test prints the stack, which Playwright's error computed before any message change.
    throw new Error(`${(err as Error).message}\n--- the page at ${page.url()} showed:\n${shown.slice(0, 3000)}${pending}`, { cause: err });
  }
}

export const hasText = (l: Locator, want: string | RegExp, timeoutMs?: number) =>
  eventually(async () => {
    const got = ((await l.textContent({ timeout: 1000 })) ?? '').trim();
    if (typeof want === 'string') assert.equal(got, want);
    else assert.match(got, want);
  }, timeoutMs);

export const isFocused = (l: Locator) => eventually(async () => assert.ok(await l.evaluate((el) => el === document.activeElement), 'element is not focused'));

export const hasAttr = (l: Locator, name: string, want: string | RegExp) =>
  eventually(async () => {
    const got = (await l.getAttribute(name, { timeout: 1000 })) ?? '';
    if (typeof want === 'string') assert.equal(got, want);
    else assert.match(got, want);
  });

export const hasCount = (l: Locator, n: number) => eventually(async () => assert.equal(await l.count(), n));

/**
 * A stack folder as an install would leave it, whose image does not exist and
 * may not be pulled: `start` then fails fast with the engine's own reason and
 * creates nothing (no network either, thanks to network_mode none).
 */
export function addStoppedStack(baseDir: string, name: string): void {
  const dir = join(baseDir, 'stacks', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    ['services:', '  web:', '    image: kade-e2e-absent-image:never', '    pull_policy: never', '    network_mode: none', ''].join('\n'),
  );
  const meta = {
    format: 1,
    source: { repo: 'e2e-store', app: 'demo', commit: null },
    values: {},
    value_types: {},
    secret_env: {},
    services: { web: {} },
    networks: [],
    web: { scheme: 'http', port: 8088, path: '/' },
    categories: [],
    template_version: null,
    installed_at: new Date().toISOString(),
  };
  writeFileSync(join(dir, '.svc.json'), JSON.stringify(meta, null, 2));
}

/** A stack folder whose compose file is gone. */
export function addBrokenStack(baseDir: string, name: string): void {
  mkdirSync(join(baseDir, 'stacks', name), { recursive: true });
}

/**
 * Best-effort cleanup in case a start did create containers; by label, so it
 * works with compose v1 and v2 alike. The test has passed or failed by then.
 */
export async function removeStackContainers(name: string): Promise<void> {
  const run = promisify(execFile);
  try {
    const { stdout } = await run('docker', ['ps', '-aq', '--filter', `label=com.docker.compose.project=${name}`], { timeout: 30_000 });
    const ids = stdout.split('\n').filter(Boolean);
    if (ids.length > 0) await run('docker', ['rm', '-f', '--', ...ids], { timeout: 30_000 });
  } catch (err) {
    console.warn(`cleanup of ${name} skipped: ${err instanceof Error ? err.message : String(err)}`);
  }
}
