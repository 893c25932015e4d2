import { BlockList, isIP } from 'node:net';

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is the IPv4 address it carries. */
export function normaliseIp(ip: string): string {
  return MAPPED_V4.exec(ip.trim())?.[1] ?? ip.trim();
}

function addEntry(list: BlockList, entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.trim().split('/');
  const ip = normaliseIp(address);
  const family = isIP(ip);
  if (family === 0 || rest.length > 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (prefix === undefined) {
    list.addAddress(ip, type);
    return true;
  }
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
  if (bits < 0 || bits > (family === 4 ? 32 : 128)) return false;
  list.addSubnet(ip, bits, type);
  return true;
}

/**
 * A matcher for a list of addresses and CIDR blocks (IPv4 and IPv6). Entries that are not an
 * address or a block are reported in `invalid` and match nothing, so a typo never widens trust.
 */
export function createIpMatcher(entries: readonly string[]): { matches: (ip: string) => boolean; invalid: string[] } {
  const list = new BlockList();
  const invalid = entries.filter((e) => !addEntry(list, e));
  return {
    invalid,
    matches(ip: string): boolean {
      const addr = normaliseIp(ip);
      const family = isIP(addr);
      if (family === 0) return false;
      return list.check(addr, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
