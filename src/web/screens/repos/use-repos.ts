import { useCallback, useEffect, useState } from 'preact/hooks';
import { listRepos } from '../../components/repos-api.ts';
import { kadeVersion, type RepoT } from './repos-api.ts';

export interface ReposState {
  repos: RepoT[] | null;
  error: unknown;
  /** The running Kade's version, to explain an outdated repo; null when unknown. */
  version: string | null;
  reload: () => void;
}

/** The repo list; `reload` after every change and every finished sync, so the screen shows what the server holds. */
export function useRepos(): ReposState {
  const [repos, setRepos] = useState<RepoT[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState<string | null>(null);
  const [round, setRound] = useState(0);

  useEffect(() => {
    let live = true;
    listRepos().then(
      (list) => {
        if (!live) return;
        setRepos(list);
        setError(null);
      },
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [round]);

  useEffect(() => {
    void kadeVersion().then(setVersion);
  }, []);

  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { repos, error, version, reload };
}
