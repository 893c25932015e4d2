import type { StackDetailT } from '../../shared/api.ts';
import type { PortCheckT } from '../../shared/host.ts';
import { ApiError, request } from '../api.ts';

export type { PortCheckT };

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

/** One installed app with its containers and the ports they publish. */
export const getStackDetail = (name: string): Promise<StackDetailT> => request<StackDetailT>('GET', `/api/stacks/${encodeURIComponent(name)}`);
