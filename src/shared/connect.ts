/**
 * Connect fields (docs/templates.md, "Connect fields"): the value is the full base address
 * `scheme://host.docker.internal:<published port>` of another installed app. Until apps share a
 * network, another app is reached through the port its container publishes on the host.
 * Pure: used by the install and configure forms and by the render tests.
 */
import { connectAddress } from './field-rules.ts';

/** The name containers use for the engine's host (`extra_hosts: host.docker.internal:host-gateway`). */
export const HOST_FROM_CONTAINERS = 'host.docker.internal';

export interface PortBindingLike {
  host_ip: string | null;
  host_port: number | null;
  container_port: number;
  protocol?: string;
}

/** What the form can offer for one installed target: its address, or why there is none. */
export type ConnectTarget = { address: string } | { problem: 'not_published' | 'loopback_only' };

const LOOPBACK = /^(127\.|::1$|\[::1\]$)/;

/**
 * The address of a target app whose containers publish `bindings`: the host port bound to the
 * connect field's container port. A port published only on 127.0.0.1 is not reachable from other
 * containers through host.docker.internal.
 */
export function connectTarget(c: { scheme: string; port: number }, bindings: readonly PortBindingLike[]): ConnectTarget {
  const own = bindings.filter((b) => b.container_port === c.port && b.host_port !== null && b.host_port > 0 && (b.protocol ?? 'tcp') === 'tcp');
  const open = own.find((b) => b.host_ip === null || !LOOPBACK.test(b.host_ip));
  if (open?.host_port) return { address: connectAddress(c.scheme, HOST_FROM_CONTAINERS, open.host_port) };
  return { problem: own.length > 0 ? 'loopback_only' : 'not_published' };
}
