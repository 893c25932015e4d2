import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareVersions, isNewer, isOutdated, newestOnChannel, parseVersion } from './version.ts';

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

test('the newest tag on a channel: stable skips pre-releases, beta takes them, a release beats its own pre-release', () => {
  const tags = ['latest', 'v0.1.00', 'v0.1.01-beta', 'v0.1.01-rc.1', 'v0.0.90', 'main', 'v0.1.00-beta'];
  assert.equal(newestOnChannel(tags, 'stable'), 'v0.1.00');
  assert.equal(newestOnChannel(tags, 'beta'), 'v0.1.01-rc.1');
  assert.equal(newestOnChannel([...tags, 'v0.1.01'], 'beta'), 'v0.1.01');
  // The roll-over: after 0.9.90 comes 1.0.00; parts compare as numbers, never as text (0.1.10 above 0.1.09, 0.10 above 0.9).
  assert.equal(newestOnChannel(['v0.9.90', 'v1.0.00', 'v0.10.00'], 'stable'), 'v1.0.00');
  assert.equal(newestOnChannel(['v0.1.09', 'v0.1.10'], 'stable'), 'v0.1.10');
  assert.equal(newestOnChannel(['latest', 'v0.1.01-beta'], 'stable'), null);
  assert.equal(newestOnChannel([], 'beta'), null);
});

test('newer: only a higher version; the running beta of a release is older than the release', () => {
  assert.equal(isNewer('v0.1.01', 'v0.1.00'), true);
  assert.equal(isNewer('v0.1.00', 'v0.1.00-beta'), true);
  assert.equal(isNewer('v0.1.00-beta', 'v0.1.00'), false);
  assert.equal(isNewer('v0.1.00', 'v0.1.00'), false);
  assert.equal(isNewer(null, 'v0.1.00'), false);
  assert.equal(isNewer('latest', 'v0.1.00'), false);
});
