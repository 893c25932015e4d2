import { useCallback, useEffect, useState } from 'preact/hooks';
import { NO_FILTER, PAGE_SIZE, type StoreFilter } from './store-filter.ts';

// SPEC Limits: the search applies 200 ms after the last key stroke.
export const SEARCH_DEBOUNCE_MS = 200;

export interface StoreFilterState {
  /** The search box as typed; becomes `filter.q` after the debounce. */
  text: string;
  filter: StoreFilter;
  /** How many matching cards are rendered; back to one page whenever the filter changes. */
  limit: number;
  setText: (text: string) => void;
  /** Applies the typed text at once (Enter in the search box). */
  applyText: () => void;
  setCategory: (id: string) => void;
  setLabel: (label: string) => void;
  clear: () => void;
  showMore: () => void;
}

export function useStoreFilter(): StoreFilterState {
  const [text, setText] = useState('');
  const [filter, setFilter] = useState<StoreFilter>(NO_FILTER);
  // The limit belongs to the filter it was raised for: a new filter starts again at one page of cards.
  const [page, setPage] = useState({ filter, limit: PAGE_SIZE });
  const limit = page.filter === filter ? page.limit : PAGE_SIZE;

  useEffect(() => {
    if (text === filter.q) return;
    const timer = setTimeout(() => setFilter((f) => ({ ...f, q: text })), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, filter.q]);

  const applyText = useCallback(() => setFilter((f) => (f.q === text ? f : { ...f, q: text })), [text]);
  const setCategory = useCallback((category: string) => setFilter((f) => ({ ...f, category })), []);
  const setLabel = useCallback((label: string) => setFilter((f) => ({ ...f, label })), []);
  const clear = useCallback(() => {
    setText('');
    // A fresh object: clearing is a change of filter too, so the card limit starts again.
    setFilter({ ...NO_FILTER });
  }, []);
  const showMore = useCallback(() => setPage({ filter, limit: limit + PAGE_SIZE }), [filter, limit]);
  return { text, filter, limit, setText, applyText, setCategory, setLabel, clear, showMore };
}
