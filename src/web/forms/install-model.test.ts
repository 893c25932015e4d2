import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemplateFieldT, TemplateFileT, TemplateGroupT } from '../../shared/template.ts';
import { advancedCount, buildSteps, freeName, missingIn, randomSecret, requestValues, startValues, stepOf } from './install-model.ts';

const field = (id: string, extra: Partial<TemplateFieldT> = {}): TemplateFieldT => ({
  id,
  label: id,
  type: 'text',
  required: false,
  secret: false,
  generate: false,
  advanced: false,
  ...extra,
});
const group = (id: string, fields: TemplateFieldT[], extra: Partial<TemplateGroupT> = {}): TemplateGroupT => ({
  id,
  label: id,
  toggle: false,
  toggle_default: true,
  advanced: false,
  fields,
  ...extra,
});
const template = (fields: TemplateFieldT[], groups: TemplateGroupT[] = []): TemplateFileT => ({
  format: 1,
  name: 'T',
  description: '',
  version: '1',
  tags: [],
  metadata: { categories: [] },
  fields,
  groups,
});

const t1 = template(
  [field('port', { type: 'port', required: true }), field('debug', { type: 'boolean', advanced: true })],
  [
    group('mail', [field('host', { required: true }), field('tls', { type: 'boolean', advanced: true })], { toggle: true, toggle_default: false }),
    group('tuning', [field('workers', { type: 'number' })], { advanced: true }),
  ],
);

test('steps: main, one per group, review; advanced ones only behind the switch, counted once per group', () => {
  assert.deepEqual(
    buildSteps(t1, false).map((s) => (s.kind === 'group' ? s.group.id : s.kind)),
    ['main', 'mail', 'review'],
  );
  assert.deepEqual(
    buildSteps(t1, true).map((s) => (s.kind === 'group' ? s.group.id : s.kind)),
    ['main', 'mail', 'tuning', 'review'],
  );
  assert.equal(advancedCount(t1), 3);
  assert.equal(stepOf(buildSteps(t1, false), ['workers']), -1);
  assert.equal(stepOf(buildSteps(t1, true), ['workers']), 2);
});

test('required: empty fields count, not in a switched-off group, not when the server generates them', () => {
  const values = startValues(t1, { port: 8080 });
  assert.equal(values.mail_enabled, false);
  const [main, mail] = buildSteps(t1, false);
  assert.ok(main && mail);
  assert.deepEqual(
    missingIn(main, { ...values, port: ' ' }).map((f) => f.id),
    ['port'],
  );
  assert.deepEqual(missingIn(mail, values), []);
  assert.deepEqual(
    missingIn(mail, { ...values, mail_enabled: true }).map((f) => f.id),
    ['host'],
  );
  const gen = buildSteps(template([field('key', { required: true, generate: true, secret: true })]), false)[0];
  assert.ok(gen);
  assert.deepEqual(missingIn(gen, { key: '' }), []);
});

test('numbers go to the server as numbers when they read as one', () => {
  assert.deepEqual(requestValues(t1, { port: '8081', debug: true, host: 'x' }), { port: 8081, debug: true, host: 'x' });
  assert.deepEqual(requestValues(t1, { port: 'abc' }), { port: 'abc' });
});

test('a random secret is 32 base64url characters; a taken name gets a number', () => {
  const s = randomSecret();
  assert.match(s, /^[A-Za-z0-9_-]{32}$/);
  assert.notEqual(s, randomSecret());
  assert.equal(freeName('hello', []), 'hello');
  assert.equal(freeName('hello', ['hello', 'hello-2']), 'hello-3');
});
