import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareVersions, isOutdated, parseVersion } from './version.ts';

const v = (s: string) => {
  const p = parseVersion(s);
  assert.ok(p, s);
  return p;
};

test('a pre-release ranks below its own release, and the last part rolls over', () => {
  assert.ok(compareVersions(v('v0.1.00-beta'), v('v0.1.00')) < 0);
  assert.ok(compareVersions(v('v0.9.90'), v('v1.0.00')) < 0);
  assert.ok(compareVersions(v('v0.1.01'), v('v0.1.00-beta')) > 0);
  assert.equal(compareVersions(v('v1.2.03'), v('v1.2.03')), 0);
});

test('outdated only when the cache version is older; unknown is never outdated', () => {
  assert.equal(isOutdated('v0.0.90', 'v0.1.00-beta'), true);
  assert.equal(isOutdated('v0.1.00', 'v0.1.00-beta'), false);
  assert.equal(isOutdated(null, 'v0.1.00'), false);
  assert.equal(isOutdated('garbage', 'v0.1.00'), false);
});
