import { isIP } from 'node:net';
import { createIpMatcher, normaliseIp } from '../core/ip-match.ts';

/** What a request's transport says about its sender, with forwarding headers believed from a trusted proxy only. */
export interface ClientInfo {
  /** The socket's own peer address. */
  peer: string;
  /** The client's address: from X-Forwarded-For when the peer is a trusted proxy, else the peer. */
  ip: string;
  /** Whether the client reached Kade over HTTPS (directly, or at a trusted proxy that says so). */
  https: boolean;
}

/**
 * The trusted proxies are the SVC_AUTH_PROXY_TRUSTED addresses plus those of the active single
 * sign-on config. From any other peer, X-Forwarded-For and X-Forwarded-Proto are ignored.
 */
export function createProxyTrust(trusted: () => readonly string[]) {
  let cached: { key: string; matches: (ip: string) => boolean } | null = null;
  const isTrusted = (ip: string): boolean => {
    const list = trusted();
    const key = list.join(' ');
    if (cached?.key !== key) cached = { key, matches: createIpMatcher([...list]).matches };
    return cached.matches(ip);
  };

  /** Walks X-Forwarded-For from the right past trusted hops; the first other address is the client. */
  const forwardedFor = (peer: string, header: string | undefined): string => {
    const hops = (header ?? '')
      .split(',')
      .map((h) => normaliseIp(h))
      .filter(Boolean);
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] ?? '';
      if (isIP(hop) === 0) break;
      client = hop;
      if (!isTrusted(hop)) break;
    }
    return client;
  };

  return {
    isTrusted,
    describe(peerRaw: string | undefined, url: string, header: (name: string) => string | undefined): ClientInfo {
      const peer = normaliseIp(peerRaw ?? 'unknown');
      const direct = url.startsWith('https:');
      if (!isTrusted(peer)) return { peer, ip: peer, https: direct };
      const proto = header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
      return { peer, ip: forwardedFor(peer, header('x-forwarded-for')), https: direct || proto === 'https' };
    },
  };
}
export type ProxyTrust = ReturnType<typeof createProxyTrust>;
