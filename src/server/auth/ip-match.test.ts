import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createIpMatcher, normaliseIp } from '../core/ip-match.ts';
import { proxyUserName } from './sso.ts';
import { ssoConfigFromAuthBlock } from './sso-config.ts';

test('addresses and CIDR blocks match, IPv4 and IPv6, mapped IPv4 included', () => {
  const m = createIpMatcher(['10.0.0.5', '192.168.1.0/24', 'fd00::/8', '::1']);
  assert.deepEqual(m.invalid, []);
  for (const ip of ['10.0.0.5', '::ffff:10.0.0.5', '192.168.1.200', 'fd12:3456::1', '::1']) assert.ok(m.matches(ip), ip);
  for (const ip of ['10.0.0.6', '192.168.2.1', 'fe80::1', '127.0.0.1', 'unknown', '']) assert.ok(!m.matches(ip), ip);
  assert.equal(normaliseIp('::ffff:127.0.0.1'), '127.0.0.1');
});

test('entries that are not an address or a block match nothing and are reported', () => {
  const m = createIpMatcher(['proxy.local', '10.0.0.0/33', '10.0.0.0/8/1', '1.2.3.4/x', '*']);
  assert.equal(m.invalid.length, 5);
  assert.ok(!m.matches('10.1.1.1'));
  assert.ok(!m.matches('1.2.3.4'));
});

test('the proxy header names one user or nobody', () => {
  assert.equal(proxyUserName('alice'), 'alice');
  assert.equal(proxyUserName('  alice '), 'alice');
  for (const v of [undefined, null, '', '  ', 'alice, alice', 'alice,bob', 'Alice Smith', '../x']) assert.equal(proxyUserName(v), null, String(v));
});

test('the AUTH block becomes an SSO config, or null when incomplete; a bad role is viewer', () => {
  assert.deepEqual(ssoConfigFromAuthBlock({ proxy_header: 'Remote-User', trusted_proxies: ['10.0.0.1'], proxy_role: 'operator' }), {
    header: 'Remote-User',
    proxies: ['10.0.0.1'],
    proxy_role: 'operator',
  });
  assert.deepEqual(ssoConfigFromAuthBlock({ proxy_header: 'X-User', trusted_proxies: '10.0.0.1, 10.0.0.2' })?.proxies, ['10.0.0.1', '10.0.0.2']);
  assert.equal(ssoConfigFromAuthBlock({ proxy_header: 'X-User', trusted_proxies: ['10.0.0.1'], proxy_role: 'superuser' })?.proxy_role, 'viewer');
  for (const block of [
    null,
    'x',
    {},
    { proxy_header: 'X-User' },
    { proxy_header: '', trusted_proxies: ['10.0.0.1'] },
    { proxy_header: 'Bad Header', trusted_proxies: ['1.1.1.1'] },
  ]) {
    assert.equal(ssoConfigFromAuthBlock(block), null, JSON.stringify(block));
  }
});
