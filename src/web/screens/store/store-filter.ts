import type { StoreAppT } from '../../../shared/api.ts';

/** SPEC Limits: cards rendered at once, and the labels offered without a search term. */
export const PAGE_SIZE = 60;
export const TOP_LABELS = 40;

export interface StoreFilter {
  /** The search term as applied (after the debounce), not as typed. */
  q: string;
  category: string;
  label: string;
}

export const NO_FILTER: StoreFilter = { q: '', category: '', label: '' };

export const hasFilter = (f: StoreFilter): boolean => f.q.trim() !== '' || f.category !== '' || f.label !== '';

const fold = (s: string) => s.toLocaleLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');

/** Whether every word of the term occurs in the name, a description (either language) or a tag. */
export function matchesText(app: StoreAppT, q: string): boolean {
  const words = fold(q).split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = fold([app.name, app.app, app.description, app.description_nl ?? '', ...app.tags].join('\n'));
  return words.every((w) => hay.includes(w));
}

export function matches(app: StoreAppT, f: StoreFilter): boolean {
  return (f.category === '' || app.categories.includes(f.category)) && (f.label === '' || app.tags.includes(f.label)) && matchesText(app, f.q);
}

export interface Counted {
  value: string;
  count: number;
}

/** Categories that hold at least one app of the store, with their number of apps. */
export function categoryCounts(apps: readonly StoreAppT[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const a of apps) for (const c of new Set(a.categories)) counts.set(c, (counts.get(c) ?? 0) + 1);
  return counts;
}

/**
 * The labels the filter offers. Without a search term: the 40 most used in the store. With one:
 * every label of the apps that match it (the term already narrows the list). A chosen label is
 * always offered, even when it falls outside those.
 */
export function labelChoices(apps: readonly StoreAppT[], f: StoreFilter): Counted[] {
  const searching = f.q.trim() !== '';
  const counts = new Map<string, number>();
  for (const a of apps) {
    if (searching && !matchesText(a, f.q)) continue;
    for (const tag of new Set(a.tags)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  }
  const ranked = [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  const shown = searching ? ranked : ranked.slice(0, TOP_LABELS);
  if (f.label !== '' && !shown.some((l) => l.value === f.label)) shown.push({ value: f.label, count: counts.get(f.label) ?? 0 });
  return shown.sort((a, b) => a.value.localeCompare(b.value));
}
