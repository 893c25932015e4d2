/**
 * The host's own network from its kernel tables (`/proc/net/route`, `/proc/net/arp`, `/proc/net/fib_trie`
 * as read in the host network namespace by the probe): which interface leads to the default gateway,
 * its subnet and address, the neighbours that hold an address, and a free range to suggest.
 */
import { formatIPv4, PROPOSAL_STEPS, parseCidr, parseIPv4 } from '../../shared/cidr.ts';
import type { HostNetworkT } from '../../shared/networks.ts';
import type { NetTables } from '../host/host-probe.ts';

export interface Route {
  iface: string;
  dest: number;
  gateway: number;
  prefix: number;
}

export interface Neighbour {
  ip: string;
  mac: string;
  iface: string;
}

/** The kernel prints addresses as little-endian hex words: `0100A8C0` is 192.168.0.1. */
function hexAddress(hex: string): number {
  const n = Number.parseInt(hex, 16);
  return (((n & 0xff) << 24) | (((n >>> 8) & 0xff) << 16) | (((n >>> 16) & 0xff) << 8) | ((n >>> 24) & 0xff)) >>> 0;
}

const prefixOf = (mask: number): number => {
  let bits = 0;
  for (let m = mask; m & 0x80000000; m = (m << 1) >>> 0) bits++;
  return bits;
};

export function parseRoutes(text: string): Route[] {
  const out: Route[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8 || !f[0] || !/^[0-9A-Fa-f]{8}$/.test(f[1] ?? '')) continue;
    out.push({ iface: f[0], dest: hexAddress(f[1] ?? ''), gateway: hexAddress(f[2] ?? ''), prefix: prefixOf(hexAddress(f[7] ?? '')) });
  }
  return out;
}

/** Complete entries only: an address some device answers for (flags 0x0 is an unanswered lookup). */
export function parseArp(text: string): Neighbour[] {
  const out: Neighbour[] = [];
  for (const line of text.split('\n').slice(1)) {
    const [ip, , flags, mac, , iface] = line.trim().split(/\s+/);
    if (!ip || !mac || !iface || parseIPv4(ip) === null) continue;
    if (flags === '0x0' || mac === '00:00:00:00:00:00') continue;
    out.push({ ip, mac, iface });
  }
  return out;
}

/** The host's own IPv4 addresses: the `/32 host LOCAL` leaves of the trie. */
export function parseLocalAddresses(text: string): Set<string> {
  const out = new Set<string>();
  let last: string | null = null;
  for (const line of text.split('\n')) {
    const leaf = /\|--\s+(\d+\.\d+\.\d+\.\d+)\s*$/.exec(line);
    if (leaf?.[1]) last = leaf[1];
    else if (last && /\/32 host LOCAL/.test(line)) out.add(last);
  }
  return out;
}

const IGNORED_IFACE = /^(lo|docker\d*|br-|veth|virbr|cni|flannel|kube|tun|tap|wg)/;

/**
 * The LAN the host's default route leads to, with a suggested free range for a network with its own
 * addresses there (macvlan): the highest aligned block clear of the gateway, the host and every neighbour.
 */
export function detectHostNetwork(tables: NetTables, kade: { subnet: string | null; interface: string | null }[]): HostNetworkT | null {
  const routes = parseRoutes(tables.route);
  const def = routes.find((r) => r.prefix === 0 && r.gateway !== 0 && !IGNORED_IFACE.test(r.iface));
  if (!def) return null;
  const link = routes.find((r) => r.iface === def.iface && r.prefix > 0 && r.prefix <= 30 && inBlock(def.gateway, r.dest, r.prefix));
  if (!link) return null;
  const subnet = `${formatIPv4(link.dest)}/${link.prefix}`;
  const local = [...parseLocalAddresses(tables.fibTrie)].find((a) => inBlock(parseIPv4(a) ?? 0, link.dest, link.prefix)) ?? null;
  const taken = new Set<number>([def.gateway, ...(local ? [parseIPv4(local) ?? 0] : []), ...parseArp(tables.arp).map((n) => parseIPv4(n.ip) ?? 0)]);
  const added = kade.some((k) => k.interface === def.iface || (k.subnet !== null && sameBlock(k.subnet, subnet)));
  return {
    interface: def.iface,
    address: local,
    subnet,
    gateway: formatIPv4(def.gateway),
    suggested_range: suggestRange(link.dest, link.prefix, taken).range,
    added,
  };
}

function inBlock(ip: number, base: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (ip & mask) >>> 0 === (base & mask) >>> 0;
}

function sameBlock(a: string, b: string): boolean {
  const x = parseCidr(a);
  const y = parseCidr(b);
  return x !== null && y !== null && x.prefix === y.prefix && inBlock(x.ip, y.ip, y.prefix);
}

/**
 * An eighth of the subnet (8 to 64 addresses), taken from the top down: at most PROPOSAL_STEPS blocks are looked at
 * (SPEC Limits, "proposed range"), so a /8 full of neighbours costs 16 steps, not 262,143 on the event loop.
 */
export function suggestRange(base: number, prefix: number, taken: ReadonlySet<number>): { range: string | null; steps: number } {
  const size = 2 ** (32 - prefix);
  const block = Math.max(8, Math.min(64, size / 8));
  if (block >= size) return { range: null, steps: 0 };
  const blockPrefix = 32 - Math.log2(block);
  let steps = 0;
  for (let start = base + size - block; start > base && steps < PROPOSAL_STEPS; start -= block) {
    steps++;
    let clear = true;
    for (const t of taken) if (t >= start && t < start + block) clear = false;
    if (clear) return { range: `${formatIPv4(start >>> 0)}/${blockPrefix}`, steps };
  }
  return { range: null, steps };
}
