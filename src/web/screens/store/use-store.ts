import { useCallback, useEffect, useState } from 'preact/hooks';
import { listRepos } from '../../components/repos-api.ts';
import { type Category, listCategories, listStoreApps, type RepoT, type StoreAppT } from './store-api.ts';

export interface StoreData {
  apps: StoreAppT[];
  categories: Category[];
  /** Only to say why the store is empty: no repo at all, or repos without apps. */
  repos: RepoT[];
}

/** Apps, categories and repos in one go; the screen shows nothing half-loaded. */
export function useStore(): { data: StoreData | null; error: unknown; reload: () => void } {
  const [data, setData] = useState<StoreData | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [round, setRound] = useState(0);

  useEffect(() => {
    let live = true;
    Promise.all([listStoreApps(), listCategories(), listRepos()]).then(
      ([apps, categories, repos]) => {
        if (!live) return;
        setData({ apps: [...apps].sort((a, b) => a.name.localeCompare(b.name) || a.repo.localeCompare(b.repo)), categories, repos });
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
