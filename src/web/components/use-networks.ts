import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { listNetworks, type NetworkListT } from './networks-api.ts';

export interface NetworksState {
  list: NetworkListT | null;
  error: unknown;
  reload: () => void;
}

/**
 * The networks, read on mount and on `reload` only: each read also inspects the host's routing table
 * through a short-lived container, too costly to repeat on a timer.
 */
export function useNetworks(): NetworksState {
  const [list, setList] = useState<NetworkListT | null>(null);
  const [error, setError] = useState<unknown>(null);
  const alive = useRef(true);
  const seq = useRef(0);
  const reload = useCallback(() => {
    // Only the newest answer counts: an older, slower one must not overwrite it.
    const mine = ++seq.current;
    listNetworks().then(
      (l) => {
        if (!alive.current || mine !== seq.current) return;
        setList(l);
        setError(null);
      },
      (e: unknown) => alive.current && mine === seq.current && setError(e),
    );
  }, []);
  useEffect(() => {
    alive.current = true;
    reload();
    return () => {
      alive.current = false;
    };
  }, [reload]);
  return { list, error, reload };
}
