/**
 * The live review of a network's address plan while it is typed (API.md: POST /api/networks/review): what
 * the input was read as, how many addresses containers can get, and blocking errors versus warnings. Codes
 * are stable (the interface translates them with `params`); messages are plain English for API users.
 */
import { blockSize, contains, formatIPv4, isAligned, normaliseCidr, overlaps, parseIPv4, rangeBlocks, reservedOverlap, usableCount } from './cidr.ts';
import type { NetworkProblemT, NetworkReviewT } from './networks.ts';

/** SPEC Limits: a range of more than this many addresses gets a warning. */
export const RANGE_WARN_ADDRESSES = 4096;
const IFACE = /^[a-zA-Z0-9][a-zA-Z0-9_.:-]{0,14}$/;

export interface ReviewInput {
  subnet?: string;
  gateway?: string;
  range?: string;
  interface?: string;
}

export interface ReviewContext {
  /** The host's own networks by interface (its routes). */
  hostNetworks: { name: string; subnet: string }[];
  /** The subnets of the engine's networks. */
  engineNetworks: { name: string; subnet: string }[];
}

const p = (code: string, message: string, params: Record<string, string | number> = {}): NetworkProblemT => ({ code, message, params });

/** A range as CIDR, or as `a-b` (from-to) which must be one aligned block. */
function readRange(raw: string, errors: NetworkProblemT[], warnings: NetworkProblemT[]): string | null {
  const dash = /^\s*([\d.]+)\s*-\s*([\d.]+)\s*$/.exec(raw);
  if (dash?.[1] && dash[2]) {
    const a = parseIPv4(dash[1]);
    const b = parseIPv4(dash[2]);
    if (a === null || b === null) {
      errors.push(p('range_invalid', `range '${raw}' is not a CIDR block such as 192.168.1.128/26`, { range: raw }));
      return null;
    }
    const lo = Math.min(a, b);
    const hi = Math.max(a, b);
    if (!isAligned(lo, hi)) {
      const blocks = rangeBlocks(formatIPv4(lo), formatIPv4(hi));
      errors.push(
        p(
          'range_not_aligned',
          `range ${raw} is not an aligned block of a power-of-two size: use ${blocks?.ruim.cidr} (larger) or ${blocks?.krap.cidr} (smaller)`,
          {
            range: raw,
            ruim: blocks?.ruim.cidr ?? '',
            krap: blocks?.krap.cidr ?? '',
          },
        ),
      );
      return null;
    }
    const cidr = `${formatIPv4(lo)}/${32 - Math.log2(hi - lo + 1)}`;
    warnings.push(p('range_normalised', `range ${raw} was read as ${cidr}`, { input: raw, cidr }));
    return cidr;
  }
  const n = normaliseCidr(raw);
  if (!n) {
    errors.push(p('range_invalid', `range '${raw}' is not a CIDR block such as 192.168.1.128/26`, { range: raw }));
    return null;
  }
  if (n.changed) warnings.push(p('range_normalised', `range ${raw.trim()} was read as ${n.cidr}`, { input: raw.trim(), cidr: n.cidr }));
  return n.cidr;
}

/** What the review found so far, in the order it found it. */
interface Found {
  errors: NetworkProblemT[];
  warnings: NetworkProblemT[];
}

type Subnet = NonNullable<ReturnType<typeof normaliseCidr>>;

export function reviewNetwork(input: ReviewInput, ctx: ReviewContext): NetworkReviewT {
  const f: Found = { errors: [], warnings: [] };
  const out = (subnet: string | null, range: string | null, usable = 0, first: string | null = null, last: string | null = null): NetworkReviewT => ({
    ok: f.errors.length === 0,
    usable,
    first,
    last,
    normalised: { subnet, range },
    errors: f.errors,
    warnings: f.warnings,
  });

  const iface = input.interface?.trim() || null;
  if (iface && !IFACE.test(iface)) f.errors.push(p('interface_invalid', `'${iface}' is not a network interface name such as eth0`, { interface: iface }));
  const sub = readSubnet(input.subnet?.trim() ?? '', f);
  if (!sub) return out(null, null);
  const range = rangeIn(input.range?.trim() ?? '', sub, f);
  const rawGateway = input.gateway?.trim() ?? '';
  const gateway = rawGateway ? readGateway(rawGateway, sub, range, f) : null;
  overlapsOf(sub, iface, ctx, f);
  if (iface && !range) {
    f.warnings.push(
      p('range_recommended', `give a range on ${iface}: without one, containers may take addresses that the LAN's DHCP server hands out`, { interface: iface }),
    );
  }
  const c = capacity(sub, range, { gateway, given: rawGateway !== '', macvlan: iface !== null }, f);
  return out(sub.cidr, range, c.usable, c.first, c.last);
}

/** The subnet, normalised, with what keeps it from being used; null when there is none to read. */
function readSubnet(rawSubnet: string, f: Found): Subnet | null {
  if (!rawSubnet) {
    f.errors.push(p('subnet_invalid', 'a subnet is needed, such as 192.168.50.0/24', { subnet: '' }));
    return null;
  }
  const sub = normaliseCidr(rawSubnet);
  if (!sub) {
    f.errors.push(p('subnet_invalid', `subnet '${rawSubnet}' is not a CIDR block such as 192.168.50.0/24`, { subnet: rawSubnet }));
    return null;
  }
  if (sub.changed) f.warnings.push(p('subnet_normalised', `${rawSubnet} was read as ${sub.cidr}`, { input: rawSubnet, cidr: sub.cidr }));
  const block = reservedOverlap(sub.cidr);
  if (block) {
    f.errors.push(
      p('subnet_reserved', `subnet ${sub.cidr} overlaps the ${block.name} block ${block.cidr}, which no container network may use`, {
        subnet: sub.cidr,
        block: block.cidr,
        kind: block.kind,
      }),
    );
  }
  if (sub.prefix > 30) f.errors.push(p('subnet_too_small', `subnet ${sub.cidr} is too small: a network needs at least a /30`, { subnet: sub.cidr }));
  return sub;
}

/** The range, when one is given and lies inside the subnet. */
function rangeIn(rawRange: string, sub: Subnet, f: Found): string | null {
  if (!rawRange) return null;
  const range = readRange(rawRange, f.errors, f.warnings);
  if (range && !(contains(sub.cidr, firstOf(range)) && contains(sub.cidr, lastOf(range)))) {
    f.errors.push(p('range_outside_subnet', `range ${range} does not lie inside the subnet ${sub.cidr}`, { range, subnet: sub.cidr }));
    return null;
  }
  return range;
}

/** The gateway as a number (null when it is no address), judged against the subnet and the range. */
function readGateway(rawGateway: string, sub: Subnet, range: string | null, f: Found): number | null {
  const subFirst = sub.base;
  const subLast = sub.base + blockSize(sub.prefix) - 1;
  const gateway = parseIPv4(rawGateway);
  if (gateway === null) f.errors.push(p('gateway_invalid', `gateway '${rawGateway}' is not an IPv4 address such as 192.168.50.1`, { gateway: rawGateway }));
  else if (gateway < subFirst || gateway > subLast) {
    f.errors.push(p('gateway_outside_subnet', `gateway ${rawGateway} does not lie inside the subnet ${sub.cidr}`, { gateway: rawGateway, subnet: sub.cidr }));
  } else if (sub.prefix <= 30 && (gateway === subFirst || gateway === subLast)) {
    f.errors.push(
      p('gateway_reserved', `gateway ${rawGateway} is the ${gateway === subFirst ? 'network' : 'broadcast'} address of ${sub.cidr}`, {
        gateway: rawGateway,
        which: gateway === subFirst ? 'network' : 'broadcast',
      }),
    );
  } else if (range && contains(range, rawGateway)) {
    f.warnings.push(p('gateway_in_range', `gateway ${rawGateway} lies inside the range ${range}: no container gets it`, { gateway: rawGateway, range }));
  }
  return gateway;
}

/** The host's own LAN is where a macvlan network belongs; any other overlap would make addresses ambiguous. */
function overlapsOf(sub: Subnet, iface: string | null, ctx: ReviewContext, f: Found): void {
  for (const h of ctx.hostNetworks) {
    if (!overlaps(h.subnet, sub.cidr)) continue;
    if (iface && h.name === iface) continue;
    f.errors.push(
      p('overlaps_host', `subnet ${sub.cidr} overlaps the host's own network ${h.subnet} on ${h.name}`, { subnet: sub.cidr, other: h.subnet, name: h.name }),
    );
  }
  for (const e of ctx.engineNetworks) {
    if (overlaps(e.subnet, sub.cidr)) {
      f.errors.push(
        p('overlaps_engine', `subnet ${sub.cidr} overlaps network '${e.name}' (${e.subnet}) of the container engine`, {
          subnet: sub.cidr,
          other: e.subnet,
          name: e.name,
        }),
      );
    }
  }
}

/**
 * Usable: the range (or subnet), less the subnet's network and broadcast address and the gateway where they fall
 * inside; with the first and last address a container can get.
 */
function capacity(
  sub: Subnet,
  range: string | null,
  gw: { gateway: number | null; given: boolean; macvlan: boolean },
  f: Found,
): { usable: number; first: string | null; last: string | null } {
  const subFirst = sub.base;
  const subLast = sub.base + blockSize(sub.prefix) - 1;
  const pool = range ?? sub.cidr;
  const poolFirst = normaliseCidr(pool)?.base ?? subFirst;
  const poolSize = blockSize(normaliseCidr(pool)?.prefix ?? sub.prefix);
  if (poolSize > RANGE_WARN_ADDRESSES) {
    f.warnings.push(
      p('range_large', `${range ? 'range' : 'subnet'} ${pool} holds ${poolSize} addresses, more than ${RANGE_WARN_ADDRESSES}`, {
        cidr: pool,
        addresses: poolSize,
      }),
    );
  }
  const reserved = sub.prefix <= 30 ? [subFirst, subLast] : [];
  if (gw.gateway !== null) reserved.push(gw.gateway);
  // Without a gateway the engine makes the bridge's first address its gateway; a macvlan network has none of its own.
  else if (!gw.given && !gw.macvlan && sub.prefix <= 30) reserved.push(subFirst + 1);
  // The engine keeps the first address of a range narrower than the subnet for itself (measured on Docker 20.10).
  if (range && poolFirst > subFirst) reserved.push(poolFirst);
  const inPool = (n: number) => n >= poolFirst && n < poolFirst + poolSize;
  const taken = new Set(reserved.filter(inPool));
  const usable = (range ? poolSize : usableCount(sub.cidr) + (sub.prefix <= 30 ? 2 : 0)) - taken.size;
  let first: number | null = null;
  for (let n = poolFirst; n < poolFirst + poolSize && first === null; n++) if (!taken.has(n)) first = n;
  let last: number | null = null;
  for (let n = poolFirst + poolSize - 1; n >= poolFirst && last === null; n--) if (!taken.has(n)) last = n;
  return { usable: Math.max(0, usable), first: first === null ? null : formatIPv4(first), last: last === null ? null : formatIPv4(last) };
}

const firstOf = (cidr: string): string => formatIPv4(normaliseCidr(cidr)?.base ?? 0);
const lastOf = (cidr: string): string => {
  const n = normaliseCidr(cidr);
  return formatIPv4(n ? n.base + blockSize(n.prefix) - 1 : 0);
};
