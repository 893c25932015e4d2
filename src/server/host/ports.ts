import { MAX_PORT } from '../../shared/host.ts';
import type { ContainerSummary } from '../engine/engine.ts';

/** Ports in use on the host, by protocol, as the kernel's socket tables list them. */
export interface HostListeners {
  tcp: ReadonlySet<number>;
  udp: ReadonlySet<number>;
}

export type ProcNetTable = 'tcp' | 'tcp6' | 'udp' | 'udp6';
const TABLES: readonly ProcNetTable[] = ['tcp', 'tcp6', 'udp', 'udp6'];
/** st column of a listening TCP socket (TCP_LISTEN). */
const TCP_LISTEN = '0A';

/**
 * Local ports of one /proc/net table: TCP sockets in LISTEN state, and every bound UDP socket
 * (UDP has no listen state; a bound socket holds the port). Lines that do not parse are skipped.
 */
export function parseProcNetTable(text: string, table: ProcNetTable): Set<number> {
  const ports = new Set<number>();
  const udp = table.startsWith('udp');
  for (const line of text.split('\n')) {
    // "  sl  local_address rem_address   st ..." → ["0:", "0100007F:1F90", "00000000:0000", "0A", ...]
    const cols = line.trim().split(/\s+/);
    const local = /^[0-9A-Fa-f]{8,32}:([0-9A-Fa-f]{4})$/.exec(cols[1] ?? '');
    if (!local?.[1] || !/^\d+:$/.test(cols[0] ?? '')) continue;
    const port = Number.parseInt(local[1], 16);
    if (port === 0) continue;
    if (udp || cols[3]?.toUpperCase() === TCP_LISTEN) ports.add(port);
  }
  return ports;
}

/**
 * Output of `tail -n +1 /proc/net/tcp /proc/net/tcp6 …`: each file follows a `==> /proc/net/x <==`
 * header. Throws when no table was readable at all, so an empty answer never passes for "nothing listens".
 */
export function parseProbeOutput(output: string): HostListeners {
  const tcp = new Set<number>();
  const udp = new Set<number>();
  let found = 0;
  for (const section of output.split(/^==> /m).slice(1)) {
    const name = /^\/proc\/net\/(\w+) <==/.exec(section)?.[1] as ProcNetTable | undefined;
    if (!name || !TABLES.includes(name)) continue;
    found++;
    const target = name.startsWith('udp') ? udp : tcp;
    for (const p of parseProcNetTable(section, name)) target.add(p);
  }
  if (found === 0) throw new Error('the probe printed no /proc/net table');
  return { tcp, udp };
}

/** Published host port → name of the container that publishes it, from one container listing. */
export function publishedPorts(containers: readonly ContainerSummary[]): Map<number, string> {
  const held = new Map<number, string>();
  for (const c of containers) {
    for (const p of c.ports) {
      if (p.host_port !== null && p.host_port > 0 && !held.has(p.host_port)) held.set(p.host_port, c.name);
    }
  }
  return held;
}

/** Whether a port is taken on any protocol, by a container (named) or by another listener on the host. */
export function holderOf(port: number, published: ReadonlyMap<number, string>, host: HostListeners | null): { taken: boolean; by: string | null } {
  const name = published.get(port);
  if (name !== undefined) return { taken: true, by: name };
  return { taken: host !== null && (host.tcp.has(port) || host.udp.has(port)), by: null };
}

export const ALTERNATIVE_STEPS = 16;

/** The first port above `port` that `taken` does not claim, trying at most `steps` ports up to 65535; else null. */
export function nextFreePort(port: number, taken: (p: number) => boolean, steps = ALTERNATIVE_STEPS): number | null {
  for (let p = port + 1; p <= Math.min(port + steps, MAX_PORT); p++) {
    if (!taken(p)) return p;
  }
  return null;
}
