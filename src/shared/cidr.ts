/**
 * IPv4 address and CIDR block arithmetic for the shared networks (SPEC: Network, Limits "host networking").
 * Addresses are unsigned 32-bit numbers; blocks are aligned powers of two. No Node or DOM globals.
 */

/** Strict dotted quad: four decimal parts 0-255 without leading zeros. */
export function parseIPv4(s: string): number | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

export function formatIPv4(n: number): string {
  const v = n >>> 0;
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
}

/** `a.b.c.d/p` with p from 0 to 32; a bare address is not a block. */
export function parseCidr(s: string): { ip: number; prefix: number } | null {
  const m = /^([^/\s]+)\/(\d{1,2})$/.exec(s.trim());
  if (!m?.[1] || !m[2]) return null;
  const ip = parseIPv4(m[1]);
  const prefix = Number(m[2]);
  if (ip === null || prefix > 32 || (m[2].length > 1 && m[2].startsWith('0'))) return null;
  return { ip, prefix };
}

export const blockSize = (prefix: number): number => 2 ** (32 - prefix);

/** The first address of the block `ip` lies in. */
const baseOf = (ip: number, prefix: number): number => ip - (ip % blockSize(prefix));

/** Host bits cleared: `192.168.1.77/24` is `192.168.1.0/24` (changed). */
export function normaliseCidr(s: string): { cidr: string; changed: boolean; base: number; prefix: number } | null {
  const c = parseCidr(s);
  if (!c) return null;
  const base = baseOf(c.ip, c.prefix);
  const cidr = `${formatIPv4(base)}/${c.prefix}`;
  return { cidr, changed: cidr !== s.trim(), base, prefix: c.prefix };
}

function span(cidr: string): { first: number; last: number } | null {
  const n = normaliseCidr(cidr);
  return n ? { first: n.base, last: n.base + blockSize(n.prefix) - 1 } : null;
}

export function firstAddress(cidr: string): string | null {
  const s = span(cidr);
  return s ? formatIPv4(s.first) : null;
}

export function lastAddress(cidr: string): string | null {
  const s = span(cidr);
  return s ? formatIPv4(s.last) : null;
}

/** Whether the address lies in the block (host bits of the block ignored). */
export function contains(cidr: string, ip: string): boolean {
  const s = span(cidr);
  const n = parseIPv4(ip);
  return s !== null && n !== null && n >= s.first && n <= s.last;
}

export function overlaps(a: string, b: string): boolean {
  const x = span(a);
  const y = span(b);
  return x !== null && y !== null && x.first <= y.last && y.first <= x.last;
}

/**
 * IPv4 blocks no container network may use (RFC 6890): packets to them never leave the host as a LAN's would,
 * and a bridge on 127.0.0.0/8 would shadow the host's own loopback services.
 */
export const RESERVED_BLOCKS = [
  { cidr: '0.0.0.0/8', kind: 'this_network', name: '"this network"' },
  { cidr: '127.0.0.0/8', kind: 'loopback', name: 'loopback' },
  { cidr: '169.254.0.0/16', kind: 'link_local', name: 'link-local' },
  { cidr: '224.0.0.0/4', kind: 'multicast', name: 'multicast' },
  { cidr: '240.0.0.0/4', kind: 'reserved', name: 'reserved (and broadcast)' },
] as const;

/** The first reserved block the given block overlaps, or null. */
export function reservedOverlap(cidr: string): (typeof RESERVED_BLOCKS)[number] | null {
  return RESERVED_BLOCKS.find((b) => overlaps(b.cidr, cidr)) ?? null;
}

/** Whether the inclusive span from..to is one aligned block of a power-of-two size. */
export function isAligned(from: number, to: number): boolean {
  const size = to - from + 1;
  if (size <= 0 || size > 2 ** 32) return false;
  const bits = Math.log2(size);
  return Number.isInteger(bits) && from % size === 0;
}

/** Addresses containers can have: /31 and /32 have no network or broadcast address; the gateway is the caller's to count. */
export function usableCount(cidr: string): number {
  const n = normaliseCidr(cidr);
  if (!n) return 0;
  const size = blockSize(n.prefix);
  return n.prefix >= 31 ? size : size - 2;
}

export interface RangeBlocksT {
  ruim: { cidr: string; addresses: number; gained: number };
  krap: { cidr: string; addresses: number; missing: number };
}

/**
 * From a wish (two addresses, either order): `ruim`, the smallest aligned block holding every wished address,
 * and `krap`, the largest aligned block wholly inside the wish (the lowest of equals). Null for a bad address.
 */
export function rangeBlocks(from: string, to: string): RangeBlocksT | null {
  const a = parseIPv4(from.trim());
  const b = parseIPv4(to.trim());
  if (a === null || b === null) return null;
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  const wish = hi - lo + 1;
  let ruimPrefix = 32;
  while (ruimPrefix > 0 && baseOf(lo, ruimPrefix) + blockSize(ruimPrefix) - 1 < hi) ruimPrefix--;
  const ruimBase = baseOf(lo, ruimPrefix);
  let best: { base: number; prefix: number } = { base: lo, prefix: 32 };
  for (let prefix = 0; prefix <= 32; prefix++) {
    const size = blockSize(prefix);
    const base = lo % size === 0 ? lo : baseOf(lo, prefix) + size;
    if (base + size - 1 <= hi) {
      best = { base, prefix };
      break;
    }
  }
  const ruimSize = blockSize(ruimPrefix);
  const krapSize = blockSize(best.prefix);
  return {
    ruim: { cidr: `${formatIPv4(ruimBase)}/${ruimPrefix}`, addresses: ruimSize, gained: ruimSize - wish },
    krap: { cidr: `${formatIPv4(best.base)}/${best.prefix}`, addresses: krapSize, missing: wish - krapSize },
  };
}

/** At most this many candidates are tried when proposing a free address. */
export const PROPOSAL_STEPS = 16;

/**
 * A free address in the range (or the subnet): never the network, broadcast or gateway address, nor the first
 * address of a range (the engine keeps it), never a taken
 * one. Starts at `near` when it lies inside and walks outward (near+1, near-1, near+2, ...), else at the start.
 */
export function proposeFree(opts: { subnet: string; range?: string | null; gateway?: string | null; taken: Set<number>; near?: number }): {
  ip: string | null;
  steps: number;
} {
  const sub = span(opts.subnet);
  if (!sub) return { ip: null, steps: 0 };
  const within = opts.range ? span(opts.range) : null;
  const first = within ? Math.max(within.first, sub.first) : sub.first;
  const last = within ? Math.min(within.last, sub.last) : sub.last;
  const tiny = sub.last - sub.first < 2;
  const gateway = opts.gateway ? parseIPv4(opts.gateway) : null;
  // The engine keeps the first address of a range (one narrower than the subnet) for itself.
  const rangeFirst = within && within.first > sub.first ? within.first : null;
  const ok = (n: number) => n >= first && n <= last && (tiny || (n !== sub.first && n !== sub.last)) && n !== gateway && n !== rangeFirst && !opts.taken.has(n);
  const inside = (n: number) => n >= first && n <= last;
  const start = opts.near !== undefined && inside(opts.near) ? opts.near : first;
  let steps = 0;
  for (let k = 0; steps < PROPOSAL_STEPS; k++) {
    const candidates = k === 0 ? [start] : [start + k, start - k];
    let any = false;
    for (const n of candidates) {
      if (!inside(n) || steps >= PROPOSAL_STEPS) continue;
      any = true;
      steps++;
      if (ok(n)) return { ip: formatIPv4(n), steps };
    }
    if (!any && start + k > last && start - k < first) break;
  }
  return { ip: null, steps };
}
