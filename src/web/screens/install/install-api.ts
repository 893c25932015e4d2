import type { JobT, StackT } from '../../../shared/api.ts';
import type { PortCheckT } from '../../../shared/host.ts';
import type { FieldValue, TemplateFileT } from '../../../shared/template.ts';
import { ApiError, request } from '../../api.ts';

export type { PortCheckT };

/** GET /api/store/apps/{repo}/{app}: the form schema and the values it starts with. */
export interface AppSchemaT {
  repo: string;
  app: string;
  template: TemplateFileT;
  values: Record<string, FieldValue>;
}

const seg = encodeURIComponent;

export const getAppSchema = (repo: string, app: string): Promise<AppSchemaT> => request<AppSchemaT>('GET', `/api/store/apps/${seg(repo)}/${seg(app)}`);

export async function installApp(body: { repo: string; app: string; name: string; values: Record<string, FieldValue> }): Promise<JobT> {
  const a = await request<{ job: JobT }>('POST', '/api/store/install', body);
  return a.job;
}

export const getStack = (name: string): Promise<StackT> => request<StackT>('GET', `/api/stacks/${seg(name)}`);

/**
 * The host's answer about a port, or null when this Kade has no port check (an older server
 * answers 404): the form then simply shows no check.
 */
export async function checkPort(port: number): Promise<PortCheckT | null> {
  try {
    return await request<PortCheckT>('GET', `/api/ports/check?port=${port}`);
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 405)) return null;
    throw e;
  }
}
