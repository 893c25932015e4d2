import type { JobT, StackDetailT } from '../../../../shared/api.ts';
import type { DeviceT } from '../../../../shared/host.ts';
import type { ConnectRequestT } from '../../../../shared/networks.ts';
import type { PathCheckT } from '../../../../shared/settings.ts';
import type { ImageTagsT, ReconfigureRequestT, StackConfigT } from '../../../../shared/stack-config.ts';
import { request } from '../../../api.ts';

export type { DeviceT, ImageTagsT, PathCheckT, StackConfigT };

const seg = encodeURIComponent;

/** The form schema of the app's template, the stored values and the extras per service. */
export const getStackConfig = (name: string): Promise<StackConfigT> => request<StackConfigT>('GET', `/api/stacks/${seg(name)}/config`);

/** Starts the reconfigure job; the server snapshots the stack first and restores it when the job fails. */
export async function reconfigure(name: string, body: ReconfigureRequestT): Promise<JobT> {
  const a = await request<{ job: JobT }>('POST', `/api/stacks/${seg(name)}/reconfigure`, body);
  return a.job;
}

export const getImageTags = (name: string, service: string): Promise<ImageTagsT> =>
  request<ImageTagsT>('GET', `/api/stacks/${seg(name)}/services/${seg(service)}/tags`);

export const listDevices = (): Promise<DeviceT[]> => request<DeviceT[]>('GET', '/api/devices');

/** The app with its containers, for the image each service runs now. */
export const getStackDetail = (name: string): Promise<StackDetailT> => request<StackDetailT>('GET', `/api/stacks/${seg(name)}`);

/** What runs now: per service the image its running container was started from, and the names of all the app's containers. */
export interface RunningT {
  images: Record<string, string>;
  containers: string[];
}

export function runningOf(detail: StackDetailT): RunningT {
  const images: Record<string, string> = {};
  for (const c of detail.containers) if (c.service && c.state === 'running' && images[c.service] === undefined) images[c.service] = c.image;
  return { images, containers: detail.containers.map((c) => c.name) };
}

/** POST /api/stacks/<name>/connect: join a shared network (all services, or some; one with its own address) or leave it; a job. */
export async function connect(name: string, body: ConnectRequestT): Promise<JobT> {
  const a = await request<{ job: JobT }>('POST', `/api/stacks/${seg(name)}/connect`, body);
  return a.job;
}
