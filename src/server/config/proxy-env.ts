import { ROLES, type Role } from '../../shared/roles.ts';
import { AppError } from '../core/errors.ts';
import { createIpMatcher } from '../core/ip-match.ts';

/** The trusted reverse proxy and single sign-on through it; read once at start from the environment. */
export interface ProxyConfig {
  /** Addresses and CIDR blocks whose requests may carry X-Forwarded-For/-Proto and the SSO header; empty: no proxy. */
  readonly trusted: readonly string[];
  /** The header with the signed-in user name; null: single sign-on is off. */
  readonly header: string | null;
  /** Role of a proxy user without a local account. */
  readonly role: Role;
}

// An RFC 9110 token, as Hono accepts it.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~\dA-Za-z]+$/;
// Headers a proxy must never be trusted to carry a user name in: they are set by browsers or by Kade itself.
const RESERVED = new Set(['cookie', 'host', 'origin', 'referer', 'content-type', 'content-length', 'x-csrf-token', 'x-forwarded-for', 'x-forwarded-proto']);

function refuse(name: string, why: string): never {
  throw new AppError('validation', `environment variable ${name} is invalid: ${why}`, { params: { name } });
}

/** Reads SVC_AUTH_PROXY_TRUSTED, _HEADER and _ROLE; a bad or incomplete combination stops the start with one line. */
export function readProxyConfig(env: {
  SVC_AUTH_PROXY_TRUSTED?: string | undefined;
  SVC_AUTH_PROXY_HEADER?: string | undefined;
  SVC_AUTH_PROXY_ROLE?: string | undefined;
}): ProxyConfig {
  const trusted = (env.SVC_AUTH_PROXY_TRUSTED ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const invalid = createIpMatcher(trusted).invalid;
  if (invalid.length > 0) refuse('SVC_AUTH_PROXY_TRUSTED', `'${invalid[0]}' is not an IP address or CIDR block (comma-separated, e.g. 10.0.0.5,172.18.0.0/16)`);
  const header = env.SVC_AUTH_PROXY_HEADER?.trim() || null;
  if (header !== null) {
    if (!HEADER_NAME.test(header)) refuse('SVC_AUTH_PROXY_HEADER', `'${header}' is not a header name (letters, digits and - only, e.g. Remote-User)`);
    if (RESERVED.has(header.toLowerCase()))
      refuse('SVC_AUTH_PROXY_HEADER', `'${header}' is a header browsers or Kade set; use the proxy's own, e.g. Remote-User`);
    if (trusted.length === 0) refuse('SVC_AUTH_PROXY_HEADER', 'it needs SVC_AUTH_PROXY_TRUSTED, the address of the proxy whose header is believed');
  }
  const rawRole = env.SVC_AUTH_PROXY_ROLE?.trim() || undefined;
  if (rawRole !== undefined && !ROLES.includes(rawRole as Role)) refuse('SVC_AUTH_PROXY_ROLE', `'${rawRole}' is not one of ${ROLES.join(', ')}`);
  if (rawRole !== undefined && header === null) refuse('SVC_AUTH_PROXY_ROLE', 'it needs SVC_AUTH_PROXY_HEADER (single sign-on is off without it)');
  return Object.freeze({ trusted: Object.freeze(trusted), header, role: (rawRole as Role | undefined) ?? 'viewer' });
}
