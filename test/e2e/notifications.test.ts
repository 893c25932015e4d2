import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import type { NotificationsT } from '../../src/shared/notifications.ts';
import { freePort } from '../engine/contract-helpers.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, hasAttr, hasCount, hasText, isFocused, launchBrowser, logInAt, requireBuiltWeb, visible } from './web-helpers.ts';

// The Notifications screen (issue 15) in en and in nl: a webhook channel to a real HTTP receiver on loopback, an
// e-mail channel to a real SMTP server (smtp-server, with a login) and a webhook to a closed port are added in the
// form; "Save and send a test" shows what each answered (delivered twice, the refused connection once) and the
// receivers got the messages; after a reload the token and the password are nowhere in the page, only "stored";
// the delivery history lists the test; a refused address is named at its field; the rules matrix is saved.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const SHOTS = '/tmp/shots';
const SMTP_USER = 'kade-mailer';

type Lang = 'en' | 'nl';

/** What the user reads and clicks, per language. */
const UI = {
  en: {
    apps: 'Apps',
    nav: 'Notifications',
    empty: 'There are no channels yet, so Kade sends no messages. Add one below.',
    addWebhook: 'Add a webhook channel',
    addEmail: 'Add an e-mail channel',
    name: 'Name',
    hookUrl: 'Webhook address',
    token: /^Token/,
    password: /^Password/,
    smtpHost: 'SMTP server',
    security: 'Encryption',
    none: 'None (trusted network only)',
    port: 'Port',
    user: 'User name',
    from: 'From address',
    to: 'To address',
    test: 'Save and send a test',
    tested: 'Saved. Test messages delivered: 2 of 3; each channel shows its answer.',
    hookOk: 'Test: ✓ Delivered (answer 200)',
    mailOk: 'Test: ✓ Delivered (answer 250)',
    refused: 'Test: ✗ Not delivered: the connection was refused (nothing listens at that address and port)',
    stored: 'stored',
    notStored: 'none stored',
    history: 'Delivery history (1)',
    testKind: 'Test message',
    delivered: '✓ Delivered (answer 200)',
    rule: (kind: string, channel: string) => `${kind}: send to ${channel}`,
    backupFailed: 'A backup failed',
    diskLow: 'The disk is almost full',
    all: 'gets every kind',
    save: 'Save',
    saved: 'Saved.',
    badUrl: 'Enter an address starting with http:// or https://, such as https://ntfy.sh/my-topic.',
    notSaved: /^Not saved\./,
    remove: (n: string) => `Remove channel ${n}`,
  },
  nl: {
    apps: 'Apps',
    nav: 'Meldingen',
    empty: 'Er zijn nog geen kanalen, dus Kade stuurt geen berichten. Voeg er hieronder een toe.',
    addWebhook: 'Een webhookkanaal toevoegen',
    addEmail: 'Een e-mailkanaal toevoegen',
    name: 'Naam',
    hookUrl: 'Webhookadres',
    token: /^Token/,
    password: /^Wachtwoord/,
    smtpHost: 'SMTP-server',
    security: 'Versleuteling',
    none: 'Geen (alleen vertrouwd netwerk)',
    port: 'Poort',
    user: 'Gebruikersnaam',
    from: 'Afzender',
    to: 'Ontvanger',
    test: 'Opslaan en een test sturen',
    tested: 'Opgeslagen. Testberichten afgeleverd: 2 van 3; elk kanaal toont zijn antwoord.',
    hookOk: 'Test: ✓ Afgeleverd (antwoord 200)',
    mailOk: 'Test: ✓ Afgeleverd (antwoord 250)',
    refused: 'Test: ✗ Niet afgeleverd: de verbinding werd geweigerd (op dat adres en die poort luistert niets)',
    stored: 'opgeslagen',
    notStored: 'niets opgeslagen',
    history: 'Verzendgeschiedenis (1)',
    testKind: 'Testbericht',
    delivered: '✓ Afgeleverd (antwoord 200)',
    rule: (kind: string, channel: string) => `${kind}: naar ${channel} sturen`,
    backupFailed: 'Een back-up is mislukt',
    diskLow: 'De schijf is bijna vol',
    all: 'krijgt alle soorten',
    save: 'Opslaan',
    saved: 'Opgeslagen.',
    badUrl: 'Vul een adres in dat begint met http:// of https://, zoals https://ntfy.sh/mijn-onderwerp.',
    notSaved: /^Niet opgeslagen\./,
    remove: (n: string) => `Kanaal ${n} verwijderen`,
  },
} as const;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface Mail {
  user: string | undefined;
  to: string[];
  raw: string;
}

let server: TestServer;
let api: ApiClient;
let browser: Browser;
let hook: Server;
let hookUrl = '';
let smtp: SMTPServer;
let smtpPort = 0;
let closedPort = 0;
const received: Received[] = [];
const mails: Mail[] = [];
const problems: string[] = [];

/** A webhook receiver on loopback that answers 200 and keeps what it got. */
async function startHook(): Promise<void> {
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
}

/** A real SMTP server on loopback, plain (no STARTTLS) with a login, that keeps every message. */
async function startSmtp(password: () => string): Promise<void> {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, done) {
      if (auth.username === SMTP_USER && auth.password === password()) done(null, { user: auth.username });
      else done(new Error('Invalid username or password'));
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          user: session.user as string | undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        done();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  smtpPort = (smtp.server.address() as AddressInfo).port;
}

const secrets: Record<Lang, { token: string; password: string }> = {
  en: { token: 'hook-token-en-5f2c9a', password: 'smtp-pass-en-77d1e0' },
  nl: { token: 'hook-token-nl-a81b3c', password: 'smtp-pass-nl-0c4e92' },
};
let current: Lang = 'en';

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startTestServer();
  api = new ApiClient(server.url);
  await api.loginAs('admin', PW);
  await api.post('/api/wizard/complete');
  await startHook();
  await startSmtp(() => secrets[current].password);
  closedPort = await freePort();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
  await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
});

const card = (page: Page, i: number): Locator => page.locator('li.nfy-channel').nth(i);
const field = (scope: Locator, label: string | RegExp) => scope.getByLabel(label, { exact: typeof label === 'string' });

/** Both widths, saved where the task's reviewer looks. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: `${SHOTS}/notify-${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

const saved = async (): Promise<NotificationsT> => {
  const r = await api.get<NotificationsT>('/api/notifications');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
};

for (const lang of ['en', 'nl'] as const) {
  const ui = UI[lang];
  const names = { hook: `Team hook ${lang}`, mail: `Ops mail ${lang}`, dead: `Dead hook ${lang}` };
  const to = `ops-${lang}@example.test`;

  describe(`notifications in the interface (${lang})`, () => {
    let page: Page;

    before(async () => {
      current = lang;
      // Each language starts from no channels.
      assert.equal((await api.put('/api/notifications', { channels: [], rules: {} })).status, 200);
      received.length = 0;
      mails.length = 0;
    });

    test('channels are added in the form and the test button shows what each receiver answered', async () => {
      page = await logInAt(browser, problems, { url: server.url, lang, width: 1280, password: PW });
      await visible(page.getByRole('heading', { name: ui.apps, level: 1 }));
      await page.getByRole('navigation').getByRole('link', { name: ui.nav, exact: true }).click();
      await visible(page.getByRole('heading', { name: ui.nav, level: 1 }));
      await visible(page.getByText(ui.empty, { exact: true }));
      await shots(page, `${lang}-empty`);

      await page.getByRole('button', { name: ui.addWebhook, exact: true }).click();
      const h = card(page, 0);
      // The new channel's first field has the focus.
      await eventually(async () => assert.ok(await field(h, ui.name).evaluate((el) => el === document.activeElement)));
      await field(h, ui.name).fill(names.hook);
      await field(h, ui.hookUrl).fill(`${hookUrl}/hook-${lang}`);
      await hasText(h.locator('[data-secret-state]'), ui.notStored);
      await field(h, ui.token).fill(secrets[lang].token);

      await page.getByRole('button', { name: ui.addEmail, exact: true }).click();
      const m = card(page, 1);
      await field(m, ui.name).fill(names.mail);
      await field(m, ui.smtpHost).fill('127.0.0.1');
      await field(m, ui.security).selectOption({ label: ui.none });
      await field(m, ui.port).fill(String(smtpPort));
      await field(m, ui.user).fill(SMTP_USER);
      await field(m, ui.password).fill(secrets[lang].password);
      await field(m, ui.from).fill('kade@example.test');
      await field(m, ui.to).fill(to);

      await page.getByRole('button', { name: ui.addWebhook, exact: true }).click();
      const d = card(page, 2);
      await field(d, ui.name).fill(names.dead);
      await field(d, ui.hookUrl).fill(`http://127.0.0.1:${closedPort}/nobody`);

      await page.getByRole('button', { name: ui.test, exact: true }).click();
      await hasText(page.locator('.nfy-outcome [role="status"]'), ui.tested, 30_000);
      await hasText(h.locator('.nfy-test'), ui.hookOk);
      await hasText(m.locator('.nfy-test'), ui.mailOk);
      await hasText(d.locator('.nfy-test'), ui.refused);
      await shots(page, `${lang}-tested`);
    });

    test('the receivers got the test message, with the token and the login', async () => {
      assert.equal(received.length, 1, JSON.stringify(received));
      const got = received[0] as Received;
      assert.equal(got.path, `/hook-${lang}`);
      assert.equal(got.headers.authorization, `Bearer ${secrets[lang].token}`);
      assert.equal((JSON.parse(got.body) as { kind: string }).kind, 'test');
      assert.equal(mails.length, 1);
      const mail = mails[0] as Mail;
      assert.equal(mail.user, SMTP_USER);
      assert.deepEqual(mail.to, [to]);
      assert.match(mail.raw, /^Subject: .+/m);
    });

    test('after a reload the secrets are nowhere in the page: the fields are empty and say "stored"', async () => {
      await page.reload();
      const h = card(page, 0);
      await visible(field(h, ui.name));
      await hasCount(page.locator('li.nfy-channel'), 3);
      await hasText(h.locator('[data-secret-state]'), ui.stored);
      await hasText(card(page, 1).locator('[data-secret-state]'), ui.stored);
      assert.equal(await field(h, ui.token).inputValue(), '');
      assert.equal(await field(card(page, 1), ui.password).inputValue(), '');
      const html = await page.content();
      for (const secret of Object.values(secrets[lang])) assert.ok(!html.includes(secret), `${secret} is in the page`);
      const body = JSON.stringify(await saved());
      for (const secret of Object.values(secrets[lang])) assert.ok(!body.includes(secret), `${secret} is in the API answer`);
    });

    test('the delivery history lists the test with its answer', async () => {
      const h = card(page, 0);
      await h.getByText(ui.history, { exact: true }).click();
      const row = h.locator('.nfy-history tbody tr');
      await hasCount(row, 1);
      await hasText(row.locator('td').nth(1), ui.testKind);
      await hasText(row.locator('td').nth(2), ui.delivered);
    });

    test('a refused address is named at its field, and nothing is saved', async () => {
      const d = card(page, 2);
      await field(d, ui.hookUrl).fill('ftp://127.0.0.1/files');
      await page.getByRole('button', { name: ui.save, exact: true }).click();
      await hasText(d.locator('.field-error'), ui.badUrl);
      await hasAttr(field(d, ui.hookUrl), 'aria-invalid', 'true');
      await isFocused(field(d, ui.hookUrl));
      await visible(page.getByRole('alert').filter({ hasText: ui.notSaved }));
      await shots(page, `${lang}-refused`);
      assert.equal((await saved()).channels[2]?.url, `http://127.0.0.1:${closedPort}/nobody`);
      await field(d, ui.hookUrl).fill(`http://127.0.0.1:${closedPort}/nobody`);
    });

    test('the rules matrix is saved and read back; a channel without rules gets every kind', async () => {
      const channels = (await saved()).channels;
      const idOf = (name: string) => channels.find((c) => c.name === name)?.id;
      const [hookId, mailId, deadId] = [idOf(names.hook), idOf(names.mail), idOf(names.dead)];
      assert.ok(hookId && mailId && deadId, JSON.stringify(channels));
      await page.getByRole('checkbox', { name: ui.rule(ui.backupFailed, names.hook), exact: true }).check();
      await page.getByRole('checkbox', { name: ui.rule(ui.diskLow, names.mail), exact: true }).check();
      await page.getByRole('button', { name: ui.save, exact: true }).click();
      await hasText(page.locator('.nfy-outcome [role="status"]'), ui.saved);
      assert.deepEqual((await saved()).rules, { backup_failed: [hookId], disk_low: [mailId] });
      await page.reload();
      const matrix = page.locator('table.nfy-matrix');
      await visible(matrix);
      assert.equal(await page.getByRole('checkbox', { name: ui.rule(ui.backupFailed, names.hook), exact: true }).isChecked(), true);
      assert.equal(await page.getByRole('checkbox', { name: ui.rule(ui.diskLow, names.mail), exact: true }).isChecked(), true);
      assert.equal(await page.getByRole('checkbox', { name: ui.rule(ui.diskLow, names.hook), exact: true }).isChecked(), false);
      await hasCount(matrix.locator('.nfy-matrix-all'), 1);
      await hasText(matrix.locator(`th[data-channel="${deadId}"] .nfy-matrix-all`), ui.all);
      await shots(page, `${lang}-rules`);
    });

    test('a channel is removed', async () => {
      await page.getByRole('button', { name: ui.remove(names.dead), exact: true }).click();
      await hasCount(page.locator('li.nfy-channel'), 2);
      await page.getByRole('button', { name: ui.save, exact: true }).click();
      await hasText(page.locator('.nfy-outcome [role="status"]'), ui.saved);
      assert.deepEqual(
        (await saved()).channels.map((c) => c.name),
        [names.hook, names.mail],
      );
      await page.context().close();
    });
  });
}

test('the pages had no errors', () => {
  assert.deepEqual(problems, []);
});
