import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MASK, maskDeep, secretList } from './mask-secrets.ts';

test('every occurrence of a secret is masked, in keys, nested arrays and objects; short values are left alone', () => {
  const secrets = secretList(['canary-123', 'canary-123-longer', 'ab', 'true']);
  assert.deepEqual(secrets, ['canary-123-longer', 'canary-123', 'true']);
  const out = maskDeep(
    { Cmd: ['sh', '-c', 'login --password=canary-123-longer && echo canary-123'], Labels: { 'k-canary-123': 'x' }, n: 5, ok: true },
    secrets,
  );
  assert.deepEqual(out, { Cmd: ['sh', '-c', `login --password=${MASK} && echo ${MASK}`], Labels: { [`k-${MASK}`]: 'x' }, n: 5, ok: true });
});
