import { useEffect, useState } from 'preact/hooks';
import { listRepos } from '../../components/repos-api.ts';
import { useLoaded } from '../../components/use-loaded.ts';
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
  const { data: repos, error, reload } = useLoaded(listRepos);
  const [version, setVersion] = useState<string | null>(null);

  useEffect(() => {
    void kadeVersion().then(setVersion);
  }, []);

  return { repos, error, version, reload };
}
