import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isInside, isSystemPath, normalisePath, parentPath } from './paths.ts';
import { readAuthBlock, SettingsUpdate } from './settings.ts';
import { canonicalTimezone, weekdayIndex } from './settings-keys.ts';

test('normalisePath collapses slashes, dots and .. without leaving the root', () => {
  assert.equal(normalisePath('/opt//kade/./stacks/'), '/opt/kade/stacks');
  assert.equal(normalisePath('/opt/kade/../../../etc'), '/etc');
  assert.equal(normalisePath(' /srv/x '), '/srv/x');
  assert.equal(normalisePath('rel/../x'), 'x');
  assert.equal(normalisePath('/'), '/');
  assert.equal(parentPath('/srv/x'), '/srv');
  assert.equal(parentPath('/srv'), '/');
});

test('isInside compares whole path parts', () => {
  assert.ok(isInside('/opt/kade/stacks', '/opt/kade'));
  assert.ok(isInside('/opt/kade', '/opt/kade'));
  assert.ok(!isInside('/opt/kade-other', '/opt/kade'));
  assert.ok(isInside('/anything', '/'));
});

test('system folders, their insides, roots and the engine socket are refused; ordinary folders are not', () => {
  for (const p of [
    '/',
    '/etc',
    '/etc/kade',
    '/proc/1',
    '/sys',
    '/boot',
    '/usr/local/kade',
    '/bin',
    '/dev/sda',
    '/var',
    '/opt',
    '/run/docker.sock',
    '/opt/../etc',
  ]) {
    assert.ok(isSystemPath(p), p);
  }
  assert.ok(isSystemPath('/srv/engine.sock', '/srv/engine.sock'));
  for (const p of ['/opt/kade', '/srv/apps', '/home/me/kade', '/tmp/kade-test-1/base', '/mnt/nas/backups']) assert.ok(!isSystemPath(p), p);
});

test('weekdays: numbers 0–6 and English or Dutch names, whole or short', () => {
  assert.equal(weekdayIndex(0), 0);
  assert.equal(weekdayIndex('Friday'), 5);
  assert.equal(weekdayIndex('zaterdag'), 6);
  assert.equal(weekdayIndex('ma'), 1);
  assert.equal(weekdayIndex('3'), 3);
  for (const bad of [7, -1, 1.5, 'funday', '']) assert.equal(weekdayIndex(bad), null, String(bad));
});

test('time zones: real IANA names in their canonical spelling', () => {
  assert.equal(canonicalTimezone('Europe/Amsterdam'), 'Europe/Amsterdam');
  assert.equal(canonicalTimezone('europe/amsterdam'), 'Europe/Amsterdam');
  assert.equal(canonicalTimezone('UTC'), 'UTC');
  for (const bad of ['Mars/Base', '../etc/passwd', '', '+01:00', 'Europe/Amsterdam; rm']) assert.equal(canonicalTimezone(bad), null, bad);
});

test('the PUT schema takes any subset, and refuses unknown keys and out-of-range values', () => {
  assert.ok(SettingsUpdate.safeParse({}).success);
  assert.ok(SettingsUpdate.safeParse({ DISK_WARN_PCT: 1, NOTIFY_TOKEN: { set: true }, REGISTRY_TOKEN: null }).success);
  assert.ok(!SettingsUpdate.safeParse({ DISK_WARN_PCT: 0 }).success);
  assert.ok(!SettingsUpdate.safeParse({ TYPO: 1 }).success);
});

test('a stored AUTH block is read leniently and never grants admin by omission', () => {
  assert.deepEqual(readAuthBlock({ proxy_header: 'Remote-User', trusted_proxies: '10.0.0.1, 10.0.0.2' }), {
    proxy_role: 'viewer',
    proxy_header: 'Remote-User',
    trusted_proxies: ['10.0.0.1', '10.0.0.2'],
  });
  assert.equal(readAuthBlock({ proxy_role: 'root' }).proxy_role, 'viewer');
  assert.equal(readAuthBlock({ proxy_role: 'operator' }).proxy_role, 'operator');
  assert.equal(readAuthBlock('nonsense').proxy_role, 'viewer');
});
