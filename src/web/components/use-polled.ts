import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Polled<T> {
  data: T | null;
  error: unknown;
  checkedAt: Date | null;
  reload: () => void;
}

/**
 * Data read again every `intervalMs` while the page is visible (a hidden tab costs the server
 * nothing) and at once when it becomes visible. `fetcher` must be stable (module-level or memoised).
 */
export function usePolled<T>(fetcher: () => Promise<T>, intervalMs: number): Polled<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [checkedAt, setCheckedAt] = useState<Date | null>(null);
  const alive = useRef(true);
  const inFlight = useRef(false);
  const again = useRef(false);

  const load = useCallback(async (): Promise<void> => {
    // One request at a time; a reload asked for meanwhile runs right after, so a finished job is never missed.
    if (inFlight.current) {
      again.current = true;
      return;
    }
    inFlight.current = true;
    try {
      const value = await fetcher();
      if (!alive.current) return;
      setData(value);
      setError(null);
      setCheckedAt(new Date());
    } catch (e) {
      if (alive.current) setError(e);
    } finally {
      inFlight.current = false;
      if (again.current && alive.current) {
        again.current = false;
        void load();
      }
    }
  }, [fetcher]);

  useEffect(() => {
    alive.current = true;
    void load();
    const whenVisible = () => {
      if (document.visibilityState === 'visible') void load();
    };
    const timer = setInterval(whenVisible, intervalMs);
    document.addEventListener('visibilitychange', whenVisible);
    return () => {
      alive.current = false;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', whenVisible);
    };
  }, [load, intervalMs]);

  const reload = useCallback(() => void load(), [load]);
  return { data, error, checkedAt, reload };
}
