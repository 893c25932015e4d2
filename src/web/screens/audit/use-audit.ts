import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { AuditAnswerT } from '../../../shared/audit.ts';
import { type AuditFilters, fetchAudit, fromSearch, NO_FILTERS, toSearch } from './audit-api.ts';

// Long enough to not ask the server on every key stroke, short enough to feel live.
const TEXT_DEBOUNCE_MS = 300;

export interface AuditState {
  filters: AuditFilters;
  /** The search box as typed; becomes `filters.q` after a short pause. */
  text: string;
  offset: number;
  answer: AuditAnswerT | null;
  error: unknown;
  loading: boolean;
  setFilter: (key: Exclude<keyof AuditFilters, 'q'>, value: string) => void;
  setText: (text: string) => void;
  /** Applies the typed text at once (Enter in the search box). */
  applyText: () => void;
  clear: () => void;
  setOffset: (offset: number) => void;
  reload: () => void;
}

/** Filters, paging and the server's answer; the selection lives in the page address as well. */
export function useAudit(): AuditState {
  const [initial] = useState(() => fromSearch(location.search));
  const [filters, setFilters] = useState<AuditFilters>(initial.filters);
  const [text, setText] = useState(initial.filters.q);
  const [offset, setOffset] = useState(initial.offset);
  const [answer, setAnswer] = useState<AuditAnswerT | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  // Only the newest request may set the answer; a slow earlier one must not overwrite it.
  const latest = useRef(0);

  useEffect(() => {
    if (text === filters.q) return;
    const timer = setTimeout(() => {
      setFilters((f) => ({ ...f, q: text }));
      setOffset(0);
    }, TEXT_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, filters.q]);

  useEffect(() => {
    const mine = ++latest.current;
    const search = toSearch(filters, offset);
    history.replaceState(history.state, '', search ? `${location.pathname}?${search}` : location.pathname);
    setLoading(true);
    const load = async () => {
      try {
        const a = await fetchAudit(filters, offset);
        if (mine !== latest.current) return;
        setAnswer(a);
        setError(null);
        // The log shrank under an open page (or the address was edited): show its last page.
        if (a.entries.length === 0 && a.total > 0 && offset > 0) setOffset(Math.floor((a.total - 1) / a.limit) * a.limit);
      } catch (e) {
        if (mine === latest.current) setError(e);
      } finally {
        if (mine === latest.current) setLoading(false);
      }
    };
    void load();
  }, [filters, offset, round]);

  const setFilter = useCallback((key: Exclude<keyof AuditFilters, 'q'>, value: string) => {
    setFilters((f) => ({ ...f, [key]: value }));
    setOffset(0);
  }, []);
  const applyText = useCallback(() => {
    setFilters((f) => (f.q === text ? f : { ...f, q: text }));
    setOffset(0);
  }, [text]);
  const clear = useCallback(() => {
    setFilters(NO_FILTERS);
    setText('');
    setOffset(0);
  }, []);
  const reload = useCallback(() => setRound((n) => n + 1), []);

  return { filters, text, offset, answer, error, loading, setFilter, setText, applyText, clear, setOffset, reload };
}
