import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineCount, tabAfterKey, tabOfHash } from './app-path.ts';

test('the hash picks a tab only when the role may see it', () => {
  assert.equal(tabOfHash('#files', ['overview', 'configure', 'files']), 'files');
  assert.equal(tabOfHash('#configure', ['overview', 'files']), 'overview');
  assert.equal(tabOfHash('', ['overview', 'files']), 'overview');
  assert.equal(tabOfHash('#nonsense', ['overview', 'files']), 'overview');
});

test('arrow keys wrap around the tabs; Home and End jump; other keys do nothing', () => {
  const tabs = ['overview', 'configure', 'files'] as const;
  assert.equal(tabAfterKey(tabs, 'overview', 'ArrowRight'), 'configure');
  assert.equal(tabAfterKey(tabs, 'files', 'ArrowRight'), 'overview');
  assert.equal(tabAfterKey(tabs, 'overview', 'ArrowLeft'), 'files');
  assert.equal(tabAfterKey(tabs, 'configure', 'Home'), 'overview');
  assert.equal(tabAfterKey(tabs, 'configure', 'End'), 'files');
  assert.equal(tabAfterKey(tabs, 'configure', 'Enter'), null);
  assert.equal(tabAfterKey(['overview', 'files'], 'configure', 'ArrowRight'), null);
});

test('lines are counted like an editor shows them', () => {
  assert.equal(lineCount(''), 0);
  assert.equal(lineCount('a'), 1);
  assert.equal(lineCount('a\n'), 1);
  assert.equal(lineCount('a\nb\n'), 2);
  assert.equal(lineCount('a\n\nb'), 3);
});
