import type { z } from 'zod';
import type { JobFacets, JobT } from '../../../shared/api.ts';
import { request } from '../../api.ts';

export type JobFacetsT = z.infer<typeof JobFacets>;

/** The jobs screen's filters as they stand in its address: /jobs?app=…&kind=…&state=…&job=… */
export interface JobFilters {
  app: string;
  kind: string;
  state: string;
}

export const NO_FILTERS: JobFilters = { app: '', kind: '', state: '' };
export const PAGE = 50;

export function listJobs(f: JobFilters, before?: string): Promise<JobT[]> {
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (f.app) q.set('stack', f.app);
  if (f.kind) q.set('kind', f.kind);
  if (f.state) q.set('state', f.state);
  if (before) q.set('before', before);
  return request<JobT[]>('GET', `/api/jobs?${q}`);
}

export const jobFacets = (): Promise<JobFacetsT> => request<JobFacetsT>('GET', '/api/jobs/facets');
