import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, contrast } from './categories.ts';

test('seventeen categories with unique ids, names in nl and en, icons', () => {
  assert.equal(CATEGORIES.length, 17);
  assert.equal(new Set(CATEGORIES.map((c) => c.id)).size, 17);
  for (const c of CATEGORIES) {
    assert.ok(c.name.nl && c.name.en && c.icon, c.id);
    assert.match(c.color, /^#[0-9a-f]{6}$/);
  }
});

test('colours are unique and keep 3:1 contrast against white and black', () => {
  assert.equal(new Set(CATEGORIES.map((c) => c.color)).size, 17);
  for (const c of CATEGORIES) {
    assert.ok(contrast(c.color, '#ffffff') >= 3, `${c.id} ${c.color} on white: ${contrast(c.color, '#ffffff').toFixed(2)}`);
    assert.ok(contrast(c.color, '#000000') >= 3, `${c.id} ${c.color} on black: ${contrast(c.color, '#000000').toFixed(2)}`);
  }
});
