import assert from 'node:assert/strict';
import { test } from 'node:test';
import { categoriesOf } from './derive-categories.ts';

test('declared known categories win; unknown ids are dropped', () => {
  assert.deepEqual(categoriesOf(['media', 'nonsense'], ['git'], 'a git server'), ['media']);
});

test('without declared categories they come from tags and description, whole words only', () => {
  assert.deepEqual(categoriesOf([], ['Photos'], ''), ['photos']);
  assert.deepEqual(categoriesOf([], [], 'Stream your movie collection'), ['media']);
  assert.deepEqual(categoriesOf([], ['vpn'], 'Password vault'), ['network', 'security']);
  assert.deepEqual(categoriesOf([], [], 'Maintains a list'), ['overig'], "'ai' inside 'maintains' does not count");
  assert.deepEqual(categoriesOf([], [], ''), ['overig']);
});
