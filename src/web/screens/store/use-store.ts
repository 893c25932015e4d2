import { listRepos } from '../../components/repos-api.ts';
import { useLoaded } from '../../components/use-loaded.ts';
import { type Category, listCategories, listStoreApps, type RepoT, type StoreAppT } from './store-api.ts';

export interface StoreData {
  apps: StoreAppT[];
  categories: Category[];
  /** Only to say why the store is empty: no repo at all, or repos without apps. */
  repos: RepoT[];
}

async function readStore(): Promise<StoreData> {
  const [apps, categories, repos] = await Promise.all([listStoreApps(), listCategories(), listRepos()]);
  return { apps: [...apps].sort((a, b) => a.name.localeCompare(b.name) || a.repo.localeCompare(b.repo)), categories, repos };
}

/** Apps, categories and repos in one go; the screen shows nothing half-loaded. */
export function useStore(): { data: StoreData | null; error: unknown; reload: () => void } {
  return useLoaded(readStore);
}
