import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hasCount, hasText, launchBrowser, logInAt, requireBuiltWeb, shoot, visible, watchPage } from './web-helpers.ts';

// What the forms say about a value is Kade's own sentence, in the user's language, under the field, while typing
// (issue #24 items 16, 18 and the Configure part of 21): a name's message names the name and the characters of its
// kind (setup, users, networks), no schema library's English reaches a form, settings and notifications say per field
// what is wrong, a name already taken is said before a submit, an old message goes once the value is fixed, and the
// Configure tab fills {name} in a default and shows a choice's default by its label.
requireBuiltWeb();

const PW = 'correct-horse-battery';
const APP = `kadetest-greet-${process.pid}`;
let git: GitServer;
let server: TestServer;
let api: ApiClient;
let browser: Browser;
const problems: string[] = [];

/** The message under the field holding the control named `name`, within `scope`. */
const errorAt = (scope: Page | Locator, name: string) => scope.locator(`:is(.field, .ifield):has([name="${name}"]) > .field-error`);
/** Nothing a schema library says in English (zod's "Too small: expected string to have >=1 characters") is on the page. */
async function noRawText(page: Page): Promise<void> {
  const text = await page.locator('body').innerText();
  assert.doesNotMatch(text, /Too small|Too big|expected (string|number)|Invalid input|\{name\}/);
}

const UI = {
  en: {
    setupUser: 'User name',
    userBad: (n: string) =>
      `“${n}” is not a valid user name: use lower-case letters, digits, . @ _ and -, starting with a letter or digit, at most 63 characters.`,
    userTaken: (n: string) => `An account named “${n}” exists already; choose another name.`,
    required: 'This field is required.',
    tooShort: 'The password needs at least 8 characters.',
    netBad: (n: string) => `“${n}” is not a valid network name: use letters, digits, _ . and -, starting with a letter or digit, at most 63 characters.`,
    diskWarn: 'Warn from usage, in % (DISK_WARN_PCT)',
    max100: 'Enter 100 or less.',
    timezone: 'Time zone (TIMEZONE)',
    zoneBad: 'Not a known time zone: use a name such as Europe/Amsterdam or UTC.',
    dirForbidden:
      '/etc/ssl cannot be allowed: it is or holds a folder no app may use (the root, the host’s system folders, the engine socket or Kade’s own folders).',
    dirRelative: 'media is not an absolute path: start it with /.',
    addWebhook: 'Add a webhook channel',
    webhookUrl: 'Webhook address',
    httpUrl: 'Enter an address starting with http:// or https://, such as https://ntfy.sh/my-topic.',
    defaultMessage: `(Default: Hello from ${APP})`,
    defaultColour: '(Default: Blue)',
  },
  nl: {
    setupUser: 'Gebruikersnaam',
    userBad: (n: string) =>
      `“${n}” is geen geldige gebruikersnaam: gebruik kleine letters, cijfers, . @ _ en -, beginnend met een letter of cijfer, hoogstens 63 tekens.`,
    userTaken: (n: string) => `Er bestaat al een account met de naam “${n}”; kies een andere naam.`,
    required: 'Dit veld is verplicht.',
    tooShort: 'Het wachtwoord moet minstens 8 tekens hebben.',
    netBad: (n: string) => `“${n}” is geen geldige netwerknaam: gebruik letters, cijfers, _ . en -, beginnend met een letter of cijfer, hoogstens 63 tekens.`,
    diskWarn: 'Waarschuwen vanaf gebruik, in % (DISK_WARN_PCT)',
    max100: 'Vul 100 of minder in.',
    timezone: 'Tijdzone (TIMEZONE)',
    zoneBad: 'Geen bekende tijdzone: gebruik een naam zoals Europe/Amsterdam of UTC.',
    dirForbidden:
      '/etc/ssl kan niet worden toegestaan: het is of bevat een map die geen app mag gebruiken (de root, systeemmappen van de host, de engine-socket of Kades eigen mappen).',
    dirRelative: 'media is geen absoluut pad: begin het met /.',
    addWebhook: 'Een webhookkanaal toevoegen',
    webhookUrl: 'Webhookadres',
    httpUrl: 'Vul een adres in dat begint met http:// of https://, zoals https://ntfy.sh/mijn-onderwerp.',
    defaultMessage: `(Standaard: Hello from ${APP})`,
    defaultColour: '(Standaard: Blauw)',
  },
} as const;
const LANGS = ['en', 'nl'] as const;

before(async () => {
  await requireEngine();
  git = await startGitServer();
  await git.addRepo('forms', 'test/fixtures/repos/forms', { branch: 'main' });
  server = await startTestServer();
  api = new ApiClient(server.url);
  browser = await launchBrowser();
});

after(async () => {
  try {
    const del = await api?.del<{ job?: { id: string } }>(`/api/stacks/${APP}`);
    if (del?.status === 202 && del.body.job) await api.waitJob(del.body.job.id);
  } finally {
    await browser?.close();
    await server?.close();
    await git?.close();
  }
});

/** A fresh page in `lang` at the wide size, before anyone has an account (the setup screen). */
async function openFresh(lang: 'en' | 'nl'): Promise<Page> {
  const context = await browser.newContext({ locale: lang === 'nl' ? 'nl-NL' : 'en-US', viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  watchPage(page, problems);
  await page.goto(server.url);
  return page;
}

const logIn = async (lang: 'en' | 'nl', path: string): Promise<Page> => {
  const page = await logInAt(browser, problems, { url: `${server.url}${path}`, lang, width: 1280, password: PW });
  await visible(page.locator('main h1'));
  return page;
};

describe('setup: the first account', () => {
  for (const lang of LANGS) {
    test(`${lang}: a user name that cannot be one is said at the field while typing, naming it and the characters a user name may hold`, async () => {
      const ui = UI[lang];
      const page = await openFresh(lang);
      const name = page.getByLabel(ui.setupUser);
      await name.fill('Bad Name');
      await hasText(errorAt(page, 'username'), ui.userBad('Bad Name'));
      await noRawText(page);
      await shoot(page, `form-messages-setup-${lang}`);
      await name.fill('olga.admin@home');
      await hasCount(errorAt(page, 'username'), 0);
      await page.context().close();
    });
  }

  test('after setup, an empty login says per field that it is required, in Kade’s words', async () => {
    await api.loginAs('admin', PW);
    await api.post('/api/wizard/complete');
    for (const lang of LANGS) {
      const page = await openFresh(lang);
      await page.locator('form button[type="submit"]').click();
      await hasText(errorAt(page, 'username'), UI[lang].required);
      await hasText(errorAt(page, 'password'), UI[lang].required);
      await noRawText(page);
      await page.context().close();
    }
  });
});

for (const lang of LANGS) {
  describe(`${lang}: the admin's forms`, () => {
    const ui = UI[lang];

    test('users: a bad or taken name is said while typing; a short password at its field after a try, gone once fixed', async () => {
      const page = await logIn(lang, '/users');
      const form = page.locator('form.user-add');
      await form.locator('[name="name"]').fill('Bad Name');
      await hasText(errorAt(form, 'name'), ui.userBad('Bad Name'));
      await form.locator('[name="name"]').fill('admin');
      await hasText(errorAt(form, 'name'), ui.userTaken('admin'));
      await form.locator('[name="name"]').fill(`olga-${lang}`);
      await hasCount(errorAt(form, 'name'), 0);
      await form.locator('[name="password"]').fill('short');
      await form.locator('button[type="submit"]').click();
      await hasText(errorAt(form, 'password'), ui.tooShort);
      await noRawText(page);
      await shoot(page, `form-messages-users-${lang}`);
      await form.locator('[name="password"]').fill('long-enough-password');
      await hasCount(errorAt(form, 'password'), 0);
      await page.context().close();
    });

    test('networks: a name that cannot be a network name is said while typing, with the characters network names may hold', async () => {
      const page = await logIn(lang, '/networks');
      const form = page.locator('form.net-form');
      await form.locator('[name="name"]').fill('bad name!');
      await hasText(errorAt(form, 'name'), ui.netBad('bad name!'));
      await shoot(page, `form-messages-networks-${lang}`);
      await form.locator('[name="name"]').fill('Media.Net_1');
      await hasCount(errorAt(form, 'name'), 0);
      await page.context().close();
    });

    test('settings: a value the server would refuse is said at its own field while typing, and goes once fixed', async () => {
      const page = await logIn(lang, '/settings');
      await page.getByLabel(ui.diskWarn).fill('500');
      await hasText(errorAt(page, 'DISK_WARN_PCT'), ui.max100);
      await page.getByLabel(ui.timezone).fill('Mars/Olympus');
      await hasText(errorAt(page, 'TIMEZONE'), ui.zoneBad);
      await noRawText(page);
      await page.locator('[name="TIMEZONE"]').scrollIntoViewIfNeeded();
      await shoot(page, `form-messages-settings-${lang}`);
      // The allowed host folders, each judged by the server while typing, as the save would.
      const dirs = page.locator('[name="ALLOWED_HOST_DIRS"]');
      await dirs.fill('/srv/media\n/etc/ssl');
      await hasText(errorAt(page, 'ALLOWED_HOST_DIRS'), ui.dirForbidden);
      await dirs.fill('/srv/media\nmedia');
      await hasText(errorAt(page, 'ALLOWED_HOST_DIRS'), ui.dirRelative);
      await dirs.fill('/srv/media');
      await hasCount(errorAt(page, 'ALLOWED_HOST_DIRS'), 0);
      await page.getByLabel(ui.diskWarn).fill('90');
      await page.getByLabel(ui.timezone).fill('Europe/Amsterdam');
      await hasCount(errorAt(page, 'DISK_WARN_PCT'), 0);
      await hasCount(errorAt(page, 'TIMEZONE'), 0);
      await page.context().close();
    });

    test('notifications: a webhook address that is not http(s) is said at its field while typing', async () => {
      const page = await logIn(lang, '/notifications');
      await page.getByRole('button', { name: ui.addWebhook }).click();
      const card = page.locator('[data-kind="webhook"]');
      await card.getByLabel(ui.webhookUrl).fill('ftp://example.org/hook');
      await hasText(errorAt(card, 'url'), ui.httpUrl);
      await shoot(page, `form-messages-notifications-${lang}`);
      await card.getByLabel(ui.webhookUrl).fill('https://example.org/hook');
      await hasCount(errorAt(card, 'url'), 0);
      await page.context().close();
    });
  });
}

describe('Configure: defaults as the install had them', () => {
  before(async () => {
    await api.addSyncedRepo('Forms', git.url('forms'));
    const ok = await api.post<{ job: { id: string } }>('/api/store/install', {
      repo: 'forms',
      app: 'greeting',
      name: APP,
      values: { port: 18000 + (process.pid % 900) },
    });
    assert.equal(ok.status, 202, JSON.stringify(ok.body));
    const job = await api.waitJob(ok.body.job.id);
    assert.equal(job.state, 'succeeded', job.log.join('\n'));
  });

  for (const lang of LANGS) {
    test(`${lang}: {name} is filled in a default, and a choice's default is shown by its label`, async () => {
      const page = await logIn(lang, `/apps/${APP}#configure`);
      const ui = UI[lang];
      await visible(page.locator('.configure-form'));
      await hasText(page.locator('.ifield[data-field="message"] .hint'), ui.defaultMessage);
      await hasText(page.locator('.ifield[data-field="colour"] .hint'), ui.defaultColour);
      await noRawText(page);
      await shoot(page, `form-messages-configure-${lang}`);
      await page.context().close();
    });
  }
});

test('no browser problems', () =>
  assert.deepEqual(
    problems.filter((p) => !/status of 40\d/.test(p)),
    [],
  ));
