import type { ContainerEntryT } from '../../../shared/api.ts';
import { request } from '../../api.ts';

export type { ContainerEntryT };
export type ContainerAction = 'start' | 'stop' | 'restart';

const base = (id: string) => `/api/containers/${encodeURIComponent(id)}`;

export const listContainers = (): Promise<ContainerEntryT[]> => request<ContainerEntryT[]>('GET', '/api/containers');
export const inspectContainer = (id: string): Promise<Record<string, unknown>> => request<Record<string, unknown>>('GET', base(id));
export const containerAction = (id: string, action: ContainerAction): Promise<void> => request<undefined>('POST', `${base(id)}/${action}`);
export const deleteContainer = (id: string): Promise<void> => request<undefined>('DELETE', base(id));
/** The followed log as server-sent events (`line`, then `end`); the session cookie goes along. */
