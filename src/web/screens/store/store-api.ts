import type { RepoT, StoreAppT } from '../../../shared/api.ts';
import type { Category } from '../../../shared/categories.ts';
import { request } from '../../api.ts';

export type { Category, RepoT, StoreAppT };

export const listStoreApps = (): Promise<StoreAppT[]> => request<StoreAppT[]>('GET', '/api/store/apps');

/** The one source of category names and colours; the interface never keeps its own copy. */
export const listCategories = (): Promise<Category[]> => request<Category[]>('GET', '/api/categories');
