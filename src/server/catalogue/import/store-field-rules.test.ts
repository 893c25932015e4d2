import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchesWhole } from '../../../shared/field-pattern.ts';
import { allFields } from '../../templates/render.ts';
import { checkPath } from './check.ts';
import { accepted, quirksApp, rendered, TIPI_QUIRKS } from './store-quirks-kit.ts';

// Issue #26, class 3: required fields without a default, whose own rules the check's stand-ins must pass.
test('class 3: required fields without a default get stand-ins their own rules accept', async () => {
  const a = quirksApp('rules-tipi');
  const { doc, env } = rendered('rules-tipi');
  const e = doc.services['rules-tipi'].environment;
  const value = (k: string) => (String(e[k]).startsWith('${') ? env[String(e[k]).slice(2, -1)] : e[k]) as string;
  assert.ok(value('ADMIN_PASSWORD').length >= 20, value('ADMIN_PASSWORD'));
  assert.ok(value('SECRET_KEY_BASE').length >= 51 && value('SECRET_KEY_BASE').length <= 64);
  assert.match(value('PIN'), /^[0-9]{12,}$/);
  for (const [k, id] of [
    ['ADMIN_EMAIL', 'rules_email'],
    ['BACKUP_CRON', 'rules_cron'],
    ['ZT_NETWORK', 'rules_network_id'],
  ] as const) {
    const pattern = allFields(a.template).find((f) => f.id === id)?.pattern ?? '';
    assert.ok(matchesWhole(pattern, value(k)), `${k}=${value(k)} matches ${pattern}`);
  }
  assert.match(value('ZT_NETWORK'), /^[0-9a-f]{16}$/);
  assert.ok(value('INSTANCE').length >= 3 && value('INSTANCE').length <= 6, value('INSTANCE'));
  assert.equal(value('CONTACT'), 'admin@example.com');
  await accepted('rules-tipi');
});

test('class 3: a Runtipi random field keeps its length (min, else 32) and its encoding', () => {
  const a = quirksApp('rules-tipi');
  const f = (id: string) => allFields(a.template).find((x) => x.id === id);
  assert.deepEqual([f('rules_node_key')?.min_length, f('rules_node_key')?.max_length, f('rules_node_key')?.generate_encoding], [16, 16, 'hex']);
  const { env } = rendered('rules-tipi');
  assert.match(env.RULES_NODE_KEY ?? '', /^[0-9a-f]{16}$/);
  assert.match(env.RULES_COOKIE_KEY ?? '', /^[A-Za-z0-9_-]{48}$/);
  assert.match(env.RULES_SESSION_KEY ?? '', /^[0-9a-f]{32}$/);
});

test('class 3: an app whose required field no made-up value passes counts as needing input, apart from the invalid ones', async () => {
  const r = await checkPath(TIPI_QUIRKS);
  assert.deepEqual([r.found, r.imported, r.valid, r.needsInput], [6, 6, 5, 1]);
  assert.deepEqual(r.failures, ['asks-tipi: needs input: asks_licence (no made-up value passes: at least 10 characters, the form [A-Z]{3})']);
});
