import type { JobT, RepoT } from '../../../shared/api.ts';
import { request } from '../../api.ts';

export type { JobT, RepoT };

/** What the add and edit forms send; absent keys keep (edit) or default (add) on the server. */
export interface RepoInput {
  /** Only when adding; a safe name or the server refuses it. */
  id?: string;
  name: string;
  url?: string;
  branch?: string;
  subdirectory?: string;
  token?: string;
  pinned_commit?: string;
}

const path = (id: string) => `/api/repos/${encodeURIComponent(id)}`;

/** Adds a repo; the server starts its first sync at once. */
export const addRepo = (input: RepoInput): Promise<{ repo: RepoT; job: JobT }> => request('POST', '/api/repos', input);

/** Saves a repo (id unchanged; no token keeps the stored one); the server fetches it again at once. */
export const editRepo = (id: string, input: RepoInput): Promise<{ repo: RepoT; job: JobT }> => request('PUT', path(id), input);

export const deleteRepo = (id: string): Promise<void> => request<undefined>('DELETE', path(id));

export async function syncRepo(id: string): Promise<JobT> {
  const a = await request<{ job: JobT }>('POST', `${path(id)}/sync`);
  return a.job;
}

/** The running Kade's version, to explain an `outdated` repo; /healthz needs no login. */
export async function kadeVersion(): Promise<string | null> {
  try {
    return (await request<{ version: string }>('GET', '/healthz')).version;
  } catch {
    // Only a nicer explanation depends on it.
    return null;
  }
}
