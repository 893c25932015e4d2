import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchesWhole } from '../../../shared/field-pattern.ts';
import { checkField } from '../../../shared/field-rules.ts';
import type { TemplateFieldT } from '../../../shared/template.ts';
import { rulesOf, standIn } from './check-stand-in.ts';
import { patternExample } from './pattern-example.ts';

const FQDN = '(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}';
const IPV4 = '(?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)';

test('a value made from a pattern matches it: e-mail, cron, a 16-character id, host names, addresses, dates, flags', () => {
  for (const p of [
    '[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}',
    '[^@\\s]+@[^@\\s]+\\.[^@\\s]+',
    '((\\*|[0-9,/-]+)\\s){4}(\\*|[0-9,/-]+)',
    '(@(annually|yearly|monthly|weekly|daily|hourly|reboot))|(@every (\\d+(ns|us|ms|s|m|h))+)|((((\\d+,)+\\d+|(\\d+(\\/|-)\\d+)|\\d+|\\*) ?){5,7})',
    '[0-9a-f]{16}',
    FQDN,
    IPV4,
    `${FQDN}|${IPV4}`,
    '\\d{4}-\\d{2}-\\d{2}',
    '(?i)[a-z]+_key',
    '(?P<user>\\w+):[^:]{8,}',
    '[]a-]+x{2,3}?',
  ]) {
    for (const stretch of [0, 3, 20]) {
      const v = patternExample(p, stretch);
      assert.ok(v !== null && matchesWhole(p, v), `${p} (${stretch}): ${v}`);
    }
  }
  assert.equal(patternExample('[0-9a-f]{16}'), '0000000000000000');
  assert.equal(patternExample('\\p{Greek}+'), null, 'syntax it does not read');
  assert.equal(patternExample('(ab'), null);
});

const field = (f: Partial<TemplateFieldT>): TemplateFieldT => ({ id: 'x', label: 'X', type: 'text', required: true, secret: false, advanced: false, ...f });

test('a stand-in passes the field’s own rules: lengths, patterns, types; null when no made-up value can', () => {
  for (const f of [
    field({}),
    field({ type: 'password', secret: true, min_length: 20 }),
    field({ type: 'password', secret: true, min_length: 51, max_length: 64 }),
    field({ type: 'password', secret: true, strong: true }),
    field({ pattern: '[0-9]+', min_length: 12 }),
    field({ min_length: 3, max_length: 6 }),
    field({ type: 'email' }),
    field({ type: 'url' }),
    field({ pattern: FQDN }),
    field({ pattern: '[0-9a-f]{16}' }),
    field({ type: 'number', min: 5, max: 9 }),
  ]) {
    const v = standIn(f, 0, '/srv/data');
    assert.ok(v !== null && checkField(f, v) === null, `${JSON.stringify(f)}: ${v}`);
  }
  assert.equal(standIn(field({}), 0, '/d'), 'kadecheck', 'what a user types, when the rules allow it');
  assert.equal(standIn(field({ type: 'email' }), 0, '/d'), 'admin@example.com');
  assert.equal(standIn(field({ type: 'port' }), 3, '/d'), 20003);
  const impossible = field({ min_length: 10, pattern: '[A-Z]{3}' });
  assert.equal(standIn(impossible, 0, '/d'), null);
  assert.equal(rulesOf(impossible), 'at least 10 characters, the form [A-Z]{3}');
});
