import type { RepoT } from '../../shared/api.ts';
import { request } from '../api.ts';

export const listRepos = (): Promise<RepoT[]> => request<RepoT[]>('GET', '/api/repos');
