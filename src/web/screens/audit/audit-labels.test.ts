import assert from 'node:assert/strict';
import { before, test } from 'node:test';

// The audit log in the reader's language (issue 24 item 21): every source Kade writes has a name, and the
// details' keys and Kade's own values (yes/no, reasons, roles, job kinds) are translated; others stay as stored.

let labels: typeof import('./audit-labels.ts');
let setLang: (l: 'nl' | 'en') => void;
before(async () => {
  // i18n.ts reads the browser language and storage at load; Node has neither.
  if (!('navigator' in globalThis)) Object.defineProperty(globalThis, 'navigator', { value: { language: 'en-US' }, configurable: true });
  if (!('document' in globalThis)) Object.defineProperty(globalThis, 'document', { value: { documentElement: {} }, configurable: true });
  labels = await import('./audit-labels.ts');
  ({ setLang } = await import('../../i18n.ts'));
});

// Every source the server's events carry (grep "source: '" in src/server): none shows raw.
const SOURCES = ['auth', 'backups', 'catalogue', 'containers', 'engine', 'jobs', 'networks', 'paths', 'settings', 'stacks', 'store'];

test('every source Kade writes has a name in nl and en', () => {
  for (const lang of ['en', 'nl'] as const) {
    setLang(lang);
    for (const s of SOURCES) assert.notEqual(labels.sourceLabel(s), s, `${lang}: ${s}`);
  }
  setLang('nl');
  assert.equal(labels.sourceLabel('networks'), 'Netwerken');
  assert.equal(labels.sourceLabel('something-new'), 'something-new');
});

test('details: keys and Kade’s own values in the language, other values as stored', () => {
  const detail = { reason: 'schedule', remove_data: true, kind: 'backup.create', role: 'operator', subnet: '10.9.0.0/24', odd_key: 'x' };
  setLang('en');
  assert.equal(labels.detailText(detail), 'reason: on schedule · data removed: yes · kind: Backup · role: operator · subnet: 10.9.0.0/24 · odd_key: x');
  setLang('nl');
  assert.equal(labels.detailText(detail), 'reden: volgens schema · data verwijderd: ja · soort: Back-up · rol: operator · subnet: 10.9.0.0/24 · odd_key: x');
  assert.equal(labels.detailText({ from: 'viewer', to: 'admin' }), 'van: kijker · naar: beheerder');
  assert.equal(labels.detailText({ from: 'v0.1.00', to: 'v0.1.01' }), 'van: v0.1.00 · naar: v0.1.01');
  assert.equal(labels.detailText(null), '');
});
