import type { HostNetworkT, IpCheckT, NetworkListT, NetworkProblemT, NetworkViewT } from '../../shared/networks.ts';
import { request } from '../api.ts';

export type { HostNetworkT, IpCheckT, NetworkListT, NetworkProblemT, NetworkViewT };

const seg = encodeURIComponent;

/** GET /api/networks: Kade's shared networks, the engine's other networks, and the host's own network. */
export const listNetworks = (): Promise<NetworkListT> => request<NetworkListT>('GET', '/api/networks');

/** GET /api/networks/<n>/ip-check: whether an address is free there, why not, and a free one nearby. */
export const checkAddress = (network: string, ip: string): Promise<IpCheckT> =>
  request<IpCheckT>('GET', `/api/networks/${seg(network)}/ip-check?${new URLSearchParams({ ip }).toString()}`);
