import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkField, RULE_CODES, type RuleIssue } from '../../shared/field-rules.ts';
import { TemplateField } from '../../shared/template.ts';
import { en } from '../messages/en.ts';
import { nl } from '../messages/nl.ts';

const tokens = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

// One refused value per rule code, as the forms meet them: the params each code really carries.
const field = (f: Record<string, unknown>) => TemplateField.parse({ id: 'f', label: 'F', ...f });
const samples: RuleIssue[] = [
  checkField(field({ required: true }), ''),
  checkField(field({ type: 'number' }), 'x'),
  checkField(field({ type: 'port' }), '99999'),
  checkField(field({ type: 'number', min: 2 }), 1),
  checkField(field({ type: 'number', max: 2 }), 3),
  checkField(field({ type: 'email' }), 'abc'),
  checkField(field({ type: 'url' }), 'abc'),
  checkField(field({ connect: { app: 'a', scheme: 'http', port: 1 } }), 'abc'),
  checkField(field({ pattern: '[a-z]+' }), '1'),
  checkField(field({ type: 'select', options: [{ value: 'a', label: 'A' }] }), 'b'),
  checkField(field({}), 'x'.repeat(4001)),
  checkField(field({ min_length: 3 }), 'ab'),
  checkField(field({ type: 'password', strong: true }), 'abcdefghijklm'),
].filter((i): i is RuleIssue => i !== null);

test('every rule code has a message in nl and en whose placeholders are the params the rule gives', () => {
  assert.deepEqual(samples.map((i) => i.code).sort(), [...RULE_CODES].sort());
  for (const i of samples) {
    const key = `field.${i.code}` as keyof typeof en;
    const params = Object.keys(i.params).sort();
    assert.deepEqual(tokens(en[key]), params, `en ${key}`);
    assert.deepEqual(tokens(nl[key]), params, `nl ${key}`);
  }
});
