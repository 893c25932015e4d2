import assert from 'node:assert/strict';
import { test } from 'node:test';
import { logSecretList, MASK, maskDeep, secretList, streamMask } from './mask-secrets.ts';

test('every occurrence of a secret is masked, in keys, nested arrays and objects; short values are left alone', () => {
  const secrets = secretList(['canary-123', 'canary-123-longer', 'ab', 'true']);
  assert.deepEqual(secrets, ['canary-123-longer', 'canary-123', 'true']);
  const out = maskDeep(
    { Cmd: ['sh', '-c', 'login --password=canary-123-longer && echo canary-123'], Labels: { 'k-canary-123': 'x' }, n: 5, ok: true },
    secrets,
  );
  assert.deepEqual(out, { Cmd: ['sh', '-c', `login --password=${MASK} && echo ${MASK}`], Labels: { [`k-${MASK}`]: 'x' }, n: 5, ok: true });
});

test('log secrets: six characters at least, a value of several lines masked line by line', () => {
  assert.deepEqual(logSecretList(['12345', 'abcdef', '-----BEGIN KEY-----\r\nMIIEvQIBADANBg\nab']), ['-----BEGIN KEY-----', 'MIIEvQIBADANBg', 'abcdef']);
});

test('a secret split across two pieces of a stream is masked; the text around it passes on', () => {
  const secrets = logSecretList(['s3cret-token-42', 'other-secret']);
  const mask = streamMask(secrets);
  let out = mask.push('token=s3cret-to');
  assert.ok(!out.includes('s3cret'), `nothing of the secret's start is passed on: ${out}`);
  out += mask.push('ken-42 and other-');
  out += mask.push('secret done');
  out += mask.flush();
  assert.equal(out, `token=${MASK} and ${MASK} done`);
});

test('a stream mask passes on at once what no secret can reach into, and a secret that may still be cut never', () => {
  const mask = streamMask(logSecretList(['abcdefgh']));
  assert.equal(mask.push('0123456789'), '012');
  assert.equal(mask.push('abcdefg'), '3456789');
  assert.equal(mask.push('h!'), '');
  assert.equal(mask.flush(), `${MASK}!`);
});
