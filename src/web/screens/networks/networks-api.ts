import type { z } from 'zod';
import type { NetworkCreated, NetworkReviewT, RangeBlocks } from '../../../shared/networks.ts';
import { request } from '../../api.ts';

export type { NetworkReviewT };
export type RangeBlocksT = z.infer<typeof RangeBlocks>;
export type NetworkCreatedT = z.infer<typeof NetworkCreated>;

/** What the create form sends; empty fields are left out, so the engine chooses. */
export interface NetworkPlan {
  subnet: string;
  gateway: string;
  range: string;
  interface: string;
}

const seg = encodeURIComponent;

const present = (plan: NetworkPlan): Partial<NetworkPlan> =>
  Object.fromEntries(Object.entries(plan).filter(([, v]) => v.trim() !== '')) as Partial<NetworkPlan>;

/** POST /api/networks: a bridge, or macvlan when an interface is given; 400 network_invalid names the first problem. */
export const createNetwork = (name: string, plan: NetworkPlan): Promise<NetworkCreatedT> =>
  request<NetworkCreatedT>('POST', '/api/networks', { name, ...present(plan) });

/** POST /api/networks with take_over: a network of the engine becomes one of Kade's. */
export const takeOverNetwork = (name: string): Promise<NetworkCreatedT> => request<NetworkCreatedT>('POST', '/api/networks', { name, take_over: true });

/** DELETE /api/networks/<n>: 409 network_in_use while apps are on it. */
export const deleteNetwork = (name: string): Promise<void> => request<undefined>('DELETE', `/api/networks/${seg(name)}`);

/** POST /api/networks/review: the live assessment of what is typed so far. */
export const reviewNetwork = (plan: NetworkPlan): Promise<NetworkReviewT> => request<NetworkReviewT>('POST', '/api/networks/review', plan);

/** POST /api/networks/range: the aligned blocks around a from-to wish. */
export const rangeBlocks = (from: string, to: string): Promise<RangeBlocksT> => request<RangeBlocksT>('POST', '/api/networks/range', { from, to });
