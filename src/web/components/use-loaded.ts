import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  /** Null until the first answer; a failed read again keeps the last one. */
  data: T | null;
  error: unknown;
  /** Reads again: after every change, so the screen shows what the server holds, not what it hoped for. */
  reload: () => void;
}

/** Data read once and again on `reload`; an answer that arrives after the screen went or read again is dropped. */
export function useLoaded<T>(fetcher: () => Promise<T>): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [round, setRound] = useState(0);

  useEffect(() => {
    let live = true;
    fetcher().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(null);
      },
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [round]);

  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, reload };
}
