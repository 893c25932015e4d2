import type { JobT, StackT } from '../../../shared/api.ts';
import type { HostPathReviewT } from '../../../shared/powers.ts';
import type { FieldValue, TemplateFileT } from '../../../shared/template.ts';
import { request } from '../../api.ts';

/** GET /api/store/apps/{repo}/{app}: the form schema and the values it starts with. */
export interface AppSchemaT {
  repo: string;
  app: string;
  template: TemplateFileT;
  values: Record<string, FieldValue>;
  /** DATA_DIR: the data folder of an app defaults to data_root/<name>. */
  data_root?: string;
}

const seg = encodeURIComponent;

export const getAppSchema = (repo: string, app: string): Promise<AppSchemaT> => request<AppSchemaT>('GET', `/api/store/apps/${seg(repo)}/${seg(app)}`);

export async function installApp(body: {
  repo: string;
  app: string;
  name: string;
  values: Record<string, FieldValue>;
  confirm_outside_paths?: string[];
}): Promise<JobT> {
  const a = await request<{ job: JobT }>('POST', '/api/store/install', body);
  return a.job;
}

export const getStack = (name: string): Promise<StackT> => request<StackT>('GET', `/api/stacks/${seg(name)}`);

/** The host folders the bind policy would refuse for an app of this name with these values (POST …/host-paths). */
export const reviewHostPaths = (repo: string, app: string, name: string, values: Record<string, FieldValue>): Promise<HostPathReviewT> =>
  request<HostPathReviewT>('POST', `/api/store/apps/${seg(repo)}/${seg(app)}/host-paths`, { name, values });
