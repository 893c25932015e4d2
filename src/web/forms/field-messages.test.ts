import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { stubBrowserGlobals } from '../../../test/helpers/browser-globals.ts';
import { NotificationsUpdate } from '../../shared/notifications.ts';
import { SettingsUpdate } from '../../shared/settings.ts';

// What the forms say under a field (field-messages.ts): a name's rule per kind with the name filled in, the shared
// schemas' issues in Kade's words (never zod's English), and a server refusal laid at the fields it names.

type Module = typeof import('./field-messages.ts');
let m: Module;
let setLang: (l: 'nl' | 'en') => void;
let ApiError: typeof import('../api.ts').ApiError;
before(async () => {
  stubBrowserGlobals();
  m = await import('./field-messages.ts');
  ({ setLang } = await import('../i18n.ts'));
  ({ ApiError } = await import('../api.ts'));
});

test('a name says which name and the characters of its own kind, in nl and en; a taken one says so', () => {
  setLang('en');
  assert.equal(
    m.nameProblem('user', 'Bad Name'),
    '“Bad Name” is not a valid user name: use lower-case letters, digits, . @ _ and -, starting with a letter or digit, at most 63 characters.',
  );
  assert.equal(
    m.nameProblem('network', 'a b'),
    '“a b” is not a valid network name: use letters, digits, _ . and -, starting with a letter or digit, at most 63 characters.',
  );
  assert.equal(
    m.nameProblem('app', 'My.App'),
    '“My.App” is not a valid name: use lower-case letters, digits, _ and -, starting with a letter or digit, at most 63 characters.',
  );
  assert.equal(m.nameProblem('user', 'olga.b@home'), null);
  assert.equal(m.nameProblem('network', 'Media.Net_1'), null);
  assert.equal(m.nameProblem('user', ''), null, 'empty is the form’s required matter');
  assert.equal(m.nameProblem('user', 'olga', ['olga']), 'An account named “olga” exists already; choose another name.');
  setLang('nl');
  assert.equal(
    m.nameProblem('user', 'Bad Name'),
    '“Bad Name” is geen geldige gebruikersnaam: gebruik kleine letters, cijfers, . @ _ en -, beginnend met een letter of cijfer, hoogstens 63 tekens.',
  );
  assert.equal(m.nameProblem('network', 'media', ['media']), 'Er bestaat al een netwerk met de naam “media”; kies een andere naam.');
  setLang('en');
});

test("the shared schemas' issues read as Kade's sentences, never as zod's English", () => {
  setLang('en');
  const settings = SettingsUpdate.safeParse({
    DISK_WARN_PCT: 500,
    BACKUP_RETENTION_COUNT: 1.5,
    APP_NETWORKS: Array(40).fill('n'),
    REGISTRY_USER: 'x'.repeat(300),
  });
  assert.equal(settings.success, false);
  const said = m.messagesByField(settings.error?.issues ?? []);
  assert.equal(said.DISK_WARN_PCT, 'Enter 100 or less.');
  assert.equal(said.BACKUP_RETENTION_COUNT, 'Enter a whole number.');
  assert.equal(said.APP_NETWORKS, 'At most 32 items.');
  assert.equal(said.REGISTRY_USER, 'At most 255 characters.');
  const notify = NotificationsUpdate.safeParse({
    channels: [{ id: 'a', kind: 'email', enabled: true, smtp: { host: '', port: Number.NaN, security: 'x', from: 'a@b', to: 'c@d' } }],
  });
  const byPath = m.messagesByField(notify.error?.issues ?? []);
  assert.equal(byPath['channels.0.smtp.host'], 'This field is required.');
  assert.equal(byPath['channels.0.smtp.port'], 'Enter a number.');
  assert.equal(byPath['channels.0.smtp.security'], 'Choose one of the offered values.');
  for (const text of [...Object.values(said), ...Object.values(byPath)]) assert.doesNotMatch(text, /Too (small|big)|expected|Invalid/);
  // A field's own sentence wins over the general one.
  assert.equal(m.issueMessage({ code: 'custom', path: ['TIMEZONE'] }, 'own words'), 'own words');
});

test('a refusal is laid at the fields it names, in Kade’s words; one naming a field the form lacks stays in the box', () => {
  setLang('en');
  const invalid = new ApiError(400, 'validation', {}, ['password'], 'password: Too small: expected string to have >=8 characters');
  assert.deepEqual(m.refusalMarks(invalid, { known: ['name', 'password'], local: () => null }), {
    marks: { password: 'Kade does not accept this value.' },
    rest: null,
  });
  assert.deepEqual(m.refusalMarks(invalid, { known: ['name', 'password'], local: (f) => `local ${f}` }).marks, { password: 'local password' });
  const badName = new ApiError(400, 'invalid_name', { name: 'Bad Name' }, ['name'], 'name: lower-case letters…');
  assert.deepEqual(m.refusalMarks(badName, { known: ['name'], name: { field: 'name', kind: 'network', value: 'Bad Name' } }).marks, {
    name: '“Bad Name” is not a valid network name: use letters, digits, _ . and -, starting with a letter or digit, at most 63 characters.',
  });
  // An empty login: the schema names both fields under the name's code; each gets its own word.
  const empty = new ApiError(400, 'invalid_name', { name: '' }, ['username', 'password'], 'username: …');
  const local = (f: string) => (f === 'password' ? 'This field is required.' : null);
  assert.deepEqual(m.refusalMarks(empty, { known: ['username', 'password'], local, name: { field: 'username', kind: 'user', value: '' } }).marks, {
    username: 'This is not a valid name: use lower-case letters, digits, _ and -, starting with a letter or digit.',
    password: 'This field is required.',
  });
  const taken = new ApiError(409, 'name_taken', { name: 'olga' }, ['name'], 'taken');
  assert.equal(m.refusalMarks(taken, { known: ['name'] }).rest, null);
  const elsewhere = new ApiError(400, 'validation', {}, ['body'], 'x');
  assert.equal(m.refusalMarks(elsewhere, { known: ['name'] }).rest, elsewhere);
  assert.deepEqual(m.refusalMarks(new Error('boom'), { known: ['name'] }).marks, {});
  // A list's field is named by its index; the form marks the field itself.
  const list = new ApiError(400, 'validation', {}, ['APP_NETWORKS.1'], 'x');
  assert.deepEqual(Object.keys(m.refusalMarks(list, { known: ['APP_NETWORKS'] }).marks), ['APP_NETWORKS']);
});

test('an old refusal stays at a field only while it holds what was sent', () => {
  assert.equal(m.stillSays({ name: 'taken' }, { name: 'olga' }, 'name', 'olga'), 'taken');
  assert.equal(m.stillSays({ name: 'taken' }, { name: 'olga' }, 'name', 'olga2'), null);
  assert.equal(m.valueAt({ channels: [{ smtp: { host: 'h' } }] }, 'channels.0.smtp.host'), 'h');
  assert.equal(m.valueAt({ channels: [] }, 'channels.3.url'), undefined);
});
