import type { JobT, StackUpdateCheckT } from '../../shared/api.ts';
import { request } from '../api.ts';

/** Asks the registries now whether an app's images have an update (the apps list and the app view). */
export const checkStackUpdate = (name: string): Promise<StackUpdateCheckT> =>
  request<StackUpdateCheckT>('POST', `/api/stacks/${encodeURIComponent(name)}/update-check`);

/** Asks the registries about every app, as one job. */
export const checkAllUpdates = async (): Promise<JobT> => (await request<{ job: JobT }>('POST', '/api/stacks/update-check')).job;
