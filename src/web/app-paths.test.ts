import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appNameOf, appPath } from './app-paths.ts';

test('the app name comes from /apps/{name} and nothing else', () => {
  assert.equal(appNameOf('/apps/wiki'), 'wiki');
  assert.equal(appNameOf('/apps/wiki/'), 'wiki');
  assert.equal(appNameOf(appPath('my app')), 'my app');
  assert.equal(appNameOf('/apps'), null);
  assert.equal(appNameOf('/apps/wiki/files'), null);
  assert.equal(appNameOf('/apps/%E0%A4%A'), '%E0%A4%A');
});
