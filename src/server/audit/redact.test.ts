import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSecretKey, safeDetail } from './redact.ts';

test('keys that name secrets are recognised in snake_case, camelCase and upper case', () => {
  for (const k of [
    'password',
    'new_password',
    'adminPassword',
    'token',
    'api_token',
    'NOTIFY_TOKEN',
    'secret',
    'clientSecret',
    'key',
    'ssh_key',
    'privateKey',
    'hash',
    'password_hash',
    'salt',
    'cookie',
    'session_id',
    'session',
    'sessionId',
    'authorization',
    'credentials',
    'csrf',
    'pwd',
    'adminpassword',
    'X-Auth-Token',
    'hash_algorithm',
  ]) {
    assert.equal(isSecretKey(k), true, k);
  }
  for (const k of [
    'repo',
    'app',
    'kind',
    'job',
    'remove_data',
    'name',
    'role',
    'ip',
    'stack',
    'count',
    'sessions_ended',
    'author',
    'monkey',
    'keep',
    'keys',
    'by',
    'from',
    'to',
  ])
    assert.equal(isSecretKey(k), false, k);
});

test('safeDetail drops secret keys, strips credentials from addresses and keeps the rest', () => {
  const out = safeDetail({
    repo: 'basic',
    password: 'hunter2',
    apiToken: 'tok-123',
    remove_data: true,
    count: 3,
    url: 'https://bob:s3cret@git.example.com/apps.git',
  });
  assert.deepEqual(out, { repo: 'basic', remove_data: true, count: 3, url: 'https://***@git.example.com/apps.git' });
});

test('safeDetail leaves out named keys, caps long values and gives null for nothing', () => {
  assert.equal(safeDetail(undefined), null);
  assert.equal(safeDetail({ token: 'x' }), null);
  assert.deepEqual(safeDetail({ ip: '10.0.0.1', kind: 'a' }, ['ip']), { kind: 'a' });
  const long = safeDetail({ note: 'x'.repeat(2000) });
  assert.equal(String(long?.note).length, 501);
});
