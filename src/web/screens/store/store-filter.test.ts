import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreAppT } from '../../../shared/api.ts';
import { categoryCounts, hasFilter, labelChoices, matches, NO_FILTER, TOP_LABELS } from './store-filter.ts';

const app = (name: string, tags: string[], categories: string[] = ['overig'], description = ''): StoreAppT => ({
  repo: 'r',
  app: name.toLowerCase(),
  name,
  description,
  description_nl: null,
  version: '1',
  icon: null,
  tags,
  categories,
  installed: [],
  format: 'kade',
  powers: [],
  needs_admin: false,
});

test('search looks in name, description and tags, every word, ignoring case and accents', () => {
  const a = { ...app('Gitea', ['git'], ['developer'], 'Lightweight git hosting'), description_nl: 'Lichte git-hosting met één klik' };
  assert.ok(matches(a, { ...NO_FILTER, q: 'GIT hosting' }));
  assert.ok(matches(a, { ...NO_FILTER, q: 'een klik' }));
  assert.ok(!matches(a, { ...NO_FILTER, q: 'git photos' }));
  assert.ok(matches(a, { ...NO_FILTER, category: 'developer', label: 'git' }));
  assert.ok(!matches(a, { ...NO_FILTER, category: 'media' }));
  assert.ok(!hasFilter({ ...NO_FILTER, q: '  ' }));
});

test('categories are counted once per app and only when used', () => {
  const counts = categoryCounts([app('A', [], ['media', 'media']), app('B', [], ['media', 'home'])]);
  assert.deepEqual(
    [...counts],
    [
      ['media', 2],
      ['home', 1],
    ],
  );
});

test('labels: the 40 most used without a term, a chosen one always, all of the matches with a term', () => {
  const apps = Array.from({ length: 50 }, (_, i) => app(`App${i}`, [`tag${String(i).padStart(2, '0')}`, ...(i < 45 ? ['common'] : [])]));
  const top = labelChoices(apps, NO_FILTER);
  assert.equal(top.length, TOP_LABELS);
  assert.deepEqual(
    top.find((l) => l.value === 'common'),
    { value: 'common', count: 45 },
  );
  assert.ok(!top.some((l) => l.value === 'tag49'));
  const chosen = labelChoices(apps, { ...NO_FILTER, label: 'tag49' });
  assert.deepEqual(
    chosen.find((l) => l.value === 'tag49'),
    { value: 'tag49', count: 1 },
  );
  const searched = labelChoices(apps, { ...NO_FILTER, q: 'app4' });
  assert.deepEqual(
    searched.map((l) => l.value),
    ['common', 'tag04', 'tag40', 'tag41', 'tag42', 'tag43', 'tag44', 'tag45', 'tag46', 'tag47', 'tag48', 'tag49'],
  );
});
