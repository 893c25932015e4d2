import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ContainerEntryT, listContainers } from './containers-api.ts';

export interface ContainersState {
  containers: ContainerEntryT[] | null;
  error: unknown;
  checkedAt: Date | null;
  reload: () => void;
}

/** All containers, read again every `intervalMs` while the page is visible, and at once when it becomes so. */
export function useContainers(intervalMs = 5000): ContainersState {
  const [containers, setContainers] = useState<ContainerEntryT[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [checkedAt, setCheckedAt] = useState<Date | null>(null);
  const alive = useRef(true);
  const inFlight = useRef(false);
  const again = useRef(false);

  const load = useCallback(async (): Promise<void> => {
    // One request at a time; a reload asked for meanwhile runs right after, so an action's result is never missed.
    if (inFlight.current) {
      again.current = true;
      return;
    }
    inFlight.current = true;
    try {
      const list = await listContainers();
      if (!alive.current) return;
      setContainers(list);
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
  return { containers, error, checkedAt, reload };
}
