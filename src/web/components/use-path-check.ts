import { useEffect, useState } from 'preact/hooks';
import type { PathCheckT } from '../../shared/settings.ts';
import { request } from '../api.ts';

export type { PathCheckT };
export type PathCheckState = { kind: 'idle' } | { kind: 'checking' } | { kind: 'done'; result: PathCheckT } | { kind: 'failed' };

const CHECK_DELAY_MS = 300;

/** GET /api/paths/check: whether Kade can see and write the folder, and the `.env` line that fixes it. */
export const checkPath = (path: string): Promise<PathCheckT> => request<PathCheckT>('GET', `/api/paths/check?${new URLSearchParams({ path }).toString()}`);

/**
 * Asks the server about an absolute path a moment after the last keystroke. A failed check says
 * nothing about the folder (the save itself gives the real answer), so it is its own state.
 */
export function usePathCheck(value: string): PathCheckState {
  const [check, setCheck] = useState<PathCheckState>({ kind: 'idle' });
  useEffect(() => {
    const path = value.trim();
    if (!path.startsWith('/')) {
      setCheck({ kind: 'idle' });
      return;
    }
    let live = true;
    setCheck({ kind: 'checking' });
    const timer = setTimeout(() => {
      checkPath(path).then(
        (result) => live && setCheck({ kind: 'done', result }),
        () => live && setCheck({ kind: 'failed' }),
      );
    }, CHECK_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [value]);
  return check;
}
