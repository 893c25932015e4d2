import { createHmac } from 'node:crypto';
import { USER_NAME_PATTERN } from '../../shared/names.ts';
import type { Role } from '../../shared/roles.ts';
import { createIpMatcher } from '../core/ip-match.ts';
import type { SsoConfig } from './sso-config.ts';
import type { UsersRepo } from './users.repo.ts';

export interface SsoUser {
  user: { name: string; role: Role };
  csrf: string;
}

/**
 * The user name a proxy sent, or null. Empty, or more than one value (a header sent twice
 * arrives comma-joined), means no single sign-on: an ambiguous identity is no identity.
 */
export function proxyUserName(raw: string | null | undefined): string | null {
  const value = raw?.trim() ?? '';
  if (value === '' || value.includes(',')) return null;
  return USER_NAME_PATTERN.test(value) ? value : null;
}

/**
 * Single sign-on through a trusted reverse proxy. The header is believed only when the
 * socket's own peer address is a configured proxy (never X-Forwarded-For, which the client
 * writes). The CSRF token is derived from a server key and the user name, so SSO users need
 * no session row and a token survives restarts.
 */
export function createSsoResolver(deps: { config: () => SsoConfig | null; users: UsersRepo; csrfKey: () => Buffer }) {
  let matcher: { list: string; matches: (ip: string) => boolean } | null = null;
  const trusted = (proxies: string[], ip: string) => {
    const list = proxies.join(' ');
    if (matcher?.list !== list) matcher = { list, ...createIpMatcher(proxies) };
    return matcher.matches(ip);
  };

  return {
    /** The proxy's user of this request, or null to fall back to the session cookie. */
    resolve(peerIp: string, header: (name: string) => string | null | undefined): SsoUser | null {
      const config = deps.config();
      if (!config || !trusted(config.proxies, peerIp)) return null;
      const name = proxyUserName(header(config.header));
      if (!name) return null;
      // A local account of the same name wins; its role is read fresh, like a session's.
      const role = deps.users.get(name)?.role ?? config.proxy_role;
      const csrf = createHmac('sha256', deps.csrfKey()).update(`sso-csrf\0${name}`).digest('base64url');
      return { user: { name, role }, csrf };
    },
  };
}

export type SsoResolver = ReturnType<typeof createSsoResolver>;
