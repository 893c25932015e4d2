import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { StackT } from '../../../shared/api.ts';
import { listStacks } from '../../api.ts';

export interface StacksState {
  stacks: StackT[] | null;
  error: unknown;
  checkedAt: Date | null;
  reload: () => void;
}

/**
 * The installed apps, refreshed every `intervalMs` while the page is visible
 * (a hidden tab costs the server nothing) and at once when it becomes visible.
 */
export function useStacks(intervalMs = 5000): StacksState {
  const [stacks, setStacks] = useState<StackT[] | null>(null);
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
      const list = await listStacks();
      if (!alive.current) return;
      setStacks([...list].sort((a, b) => a.name.localeCompare(b.name)));
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
  }, []);

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
  return { stacks, error, checkedAt, reload };
}
