import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { familyMismatches, keyMismatches, placeholders, type Scan, scanTranslations } from '../../test/helpers/i18n-calls.ts';
import { en } from './messages/en.ts';
import { nl } from './messages/nl.ts';

// SPEC, Errors: every t('key', {...}) call supplies exactly the placeholders the nl text of the key
// contains. The calls are found with the TypeScript compiler, so template-literal keys over a union
// (`status.${status}`) are checked key by key.

const NL: Record<string, string> = nl;
const EN: Record<string, string> = en;
const KEYS = Object.keys(EN);

/**
 * Calls whose params cannot be known statically, and why that is acceptable. A new dynamic call
 * fails this test until it is checked here (or rewritten to pass literal params).
 */
const COVERED_ELSEWHERE: Record<string, string> = {
  'src/web/components/error-message.tsx t(key)':
    'error.<code> with the params of the server’s problem body; the server owns those params, and a missing one stays visible as {name} (see the t() test)',
  'src/web/components/error-message.tsx t(byReason)':
    'error.<code>.<reason>, a text per reason of one code, with the params of the same problem body as error.<code>; test/security/compose-gate.test.ts checks the params each reason carries',
  'src/web/components/network-problems.ts t(key)':
    'netcheck.<code> with the params of the network review and the address check; src/web/components/network-problems.test.ts checks every code and its params in nl and en',
  'src/web/screens/diagnostics/doctor-text.ts t(key as MessageKey)':
    'doctor.msg.<code> with the params of a doctor finding (and the words made of them in textParams); src/web/screens/diagnostics/doctor-text.test.ts checks every code of shared/doctor.ts and the params the server gives it in nl and en',
  'src/web/forms/field-problem.ts t(`field.${i.code}` as MessageKey)':
    'field.<rule code> with the params of shared/field-rules.ts; src/web/forms/field-problem.test.ts checks every code and its params in nl and en',
};

let scan: Scan;
before(() => {
  scan = scanTranslations(KEYS);
});

const same = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

test('nl and en have exactly the same keys', () => {
  const missingInNl = KEYS.filter((k) => !Object.hasOwn(NL, k));
  const extraInNl = Object.keys(NL).filter((k) => !Object.hasOwn(EN, k));
  assert.deepEqual({ missingInNl, extraInNl }, { missingInNl: [], extraInNl: [] });
});

test('nl and en texts of a key use the same placeholders', () => {
  const differ = KEYS.filter((k) => NL[k] !== undefined && !same(placeholders(NL[k]), placeholders(EN[k] ?? '')));
  assert.deepEqual(
    differ.map((k) => `${k}: nl ${placeholders(NL[k] ?? '')} / en ${placeholders(EN[k] ?? '')}`),
    [],
  );
});

test('the scan finds the calls of the interface', () => {
  assert.ok(scan.calls.length > 50, `only ${scan.calls.length} t() calls found`);
  assert.ok(scan.calls.some((c) => c.keys?.includes('apps.open_label') && same(c.params ?? [], ['name'])));
});

test('every call with known keys supplies exactly the placeholders of the nl text', () => {
  assert.deepEqual(keyMismatches(scan.calls, NL), []);
});

test('a key built from a prefix elsewhere: its whole family exists and fits the params', (t) => {
  for (const c of scan.calls.filter((c) => !c.keys && c.family !== null)) t.diagnostic(`${c.where}: key family ${c.family}*`);
  assert.deepEqual(familyMismatches(scan.calls, NL), []);
});

test('the scan catches missing, wrong and extra params, also in template-literal keys', () => {
  const fixture = scanTranslations(KEYS, join(import.meta.dirname, '../../test/fixtures/i18n'));
  const found = keyMismatches(fixture.calls, NL).map((w) => w.replace(/^.*mistakes\.ts:/, ''));
  assert.deepEqual(found, [
    '8: apps.open_label needs {name} but gets {}',
    '9: apps.open_label needs {name} but gets {nam}',
    '10: apps.refresh needs {} but gets {name}',
    '11: apps.start_label needs {name} but gets {extra,name}',
    '11: apps.stop_label needs {name} but gets {extra,name}',
  ]);
});

test('a key passed along as a MessageKey value, used without params, has no placeholders', (t) => {
  // t(titleKey), t(s.nav), t(notice): such keys come from literals stored where a MessageKey is expected.
  const dynamic = scan.calls.filter((c) => !c.keys && c.family === null && c.params?.length === 0);
  for (const c of dynamic) t.diagnostic(`${c.where}: ${c.id} takes a stored MessageKey`);
  const withTokens = scan.storedKeys.filter((s) => placeholders(NL[s.key] ?? '').length > 0);
  assert.deepEqual(
    withTokens.map((s) => `${s.where}: ${s.key}`),
    [],
  );
  assert.ok(
    scan.storedKeys.some((s) => s.key === 'apps.title'),
    'the screen table keys are among the stored keys',
  );
});

test('calls whose params are not static are listed and each is covered elsewhere', (t) => {
  const open = scan.calls.filter((c) => c.params === null || (!c.keys && c.family === null && (c.params?.length ?? 0) > 0));
  for (const c of open) t.diagnostic(`${c.where}: ${c.id} — ${COVERED_ELSEWHERE[c.id] ?? 'NOT COVERED'}`);
  assert.deepEqual(
    open.filter((c) => !COVERED_ELSEWHERE[c.id]).map((c) => `${c.where}: ${c.id}`),
    [],
  );
  const stale = Object.keys(COVERED_ELSEWHERE).filter((id) => !open.some((c) => c.id === id));
  assert.deepEqual(stale, [], 'exceptions listed for calls that no longer exist');
});

test('t() fills placeholders, ignores extra params and leaves a missing one visible', async () => {
  // i18n.ts reads the browser language at load; Node 20 has no navigator.
  if (!('navigator' in globalThis)) Object.defineProperty(globalThis, 'navigator', { value: { language: 'en-US' }, configurable: true });
  const { t } = await import('./i18n.ts');
  assert.equal(t('apps.open_label', { name: 'wiki' }, 'en'), 'Open wiki in a new tab');
  assert.equal(t('apps.open_label', { name: 'wiki' }, 'nl'), NL['apps.open_label']?.replace('{name}', 'wiki'));
  assert.equal(t('setup.password_hint', { min: 8 }, 'en'), 'At least 8 characters.');
  assert.equal(t('apps.open_label', { name: 'wiki', extra: 1 }, 'en'), 'Open wiki in a new tab');
  assert.equal(t('apps.open_label', {}, 'en'), 'Open {name} in a new tab');
  assert.equal(t('audit.range', { first: 1, last: 50 }, 'en'), '1–50 of {total}');
});
