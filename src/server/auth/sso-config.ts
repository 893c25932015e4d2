import { z } from 'zod';
import { ROLES, type Role } from '../../shared/roles.ts';
import { AUTH_DEFAULT, type AuthSettingsT } from '../../shared/settings.ts';
import type { ProxyConfig } from '../config/config.ts';
import { createIpMatcher } from '../core/ip-match.ts';
import type { Logger } from '../core/logger.ts';
import type { Db } from '../db/db.ts';

/** Single sign-on through a trusted reverse proxy; null when it is off. */
export interface SsoConfig {
  /** Request header that carries the user name, e.g. `Remote-User`. */
  header: string;
  /** Addresses and CIDR blocks of the proxies whose header is believed. */
  proxies: string[];
  /** Role of a proxy user without a local account. */
  proxy_role: Role;
}

// An RFC 9110 token; Hono throws on anything else, so a bad name must switch SSO off instead.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~\dA-Za-z]+$/;

/** The AUTH settings block as the settings module stores it; unknown fields belong to others. */
const AuthBlock = z.object({
  proxy_header: z.string().optional(),
  trusted_proxies: z.union([z.array(z.string()), z.string()]).optional(),
  proxy_role: z.string().optional(),
});

/** Turns the stored AUTH block into an SSO config; anything incomplete means SSO is off. */
export function ssoConfigFromAuthBlock(block: unknown): SsoConfig | null {
  const parsed = AuthBlock.safeParse(block);
  if (!parsed.success) return null;
  const header = parsed.data.proxy_header?.trim() ?? '';
  const raw = parsed.data.trusted_proxies ?? [];
  const proxies = (typeof raw === 'string' ? raw.split(/[\s,]+/) : raw).map((p) => p.trim()).filter(Boolean);
  if (!HEADER_NAME.test(header) || proxies.length === 0) return null;
  const role = parsed.data.proxy_role;
  // A missing or unknown role must never mean admin: the least privilege is the safe default.
  const proxyRole: Role = ROLES.includes(role as Role) ? (role as Role) : 'viewer';
  return { header, proxies, proxy_role: proxyRole };
}

/** Where the active single sign-on config came from. */
export type SsoSource = 'environment' | 'settings' | 'none';

/** The SVC_AUTH_PROXY_* variables as an SSO config, or null when they do not switch it on. */
export function ssoConfigFromEnv(proxy: ProxyConfig): SsoConfig | null {
  return proxy.header ? { header: proxy.header, proxies: [...proxy.trusted], proxy_role: proxy.role } : null;
}

/**
 * The SSO config: the SVC_AUTH_PROXY_* variables when they set a header; otherwise the `AUTH`
 * row a settings table of an older version may hold (read on every call). A broken row is logged and means off.
 */
export function createSsoConfigReader(db: Db, logger: Logger, proxy?: ProxyConfig): { read: () => SsoConfig | null; source: () => SsoSource } {
  const fromEnv = proxy ? ssoConfigFromEnv(proxy) : null;
  const fromDb = createStoredSsoConfigReader(db, logger);
  const read = () => fromEnv ?? fromDb();
  return { read, source: () => (fromEnv ? 'environment' : fromDb() ? 'settings' : 'none') };
}

/** The active config as the settings screen shows it (read-only), with where it came from. */
export function activeAuthSettings(sso: { read: () => SsoConfig | null; source: () => SsoSource }): { auth: AuthSettingsT; source: SsoSource } {
  const c = sso.read();
  const auth: AuthSettingsT = c ? { proxy_header: c.header, trusted_proxies: [...c.proxies], proxy_role: c.proxy_role } : AUTH_DEFAULT;
  return { auth, source: sso.source() };
}

function createStoredSsoConfigReader(db: Db, logger: Logger): () => SsoConfig | null {
  const row = db.prepare<[], { value: string }>("SELECT value FROM settings WHERE key = 'AUTH'");
  let seen = '';
  // Told once per stored value, not on every request.
  const tellOnce = (value: string, what: () => void) => {
    if (seen !== value) what();
    seen = value;
  };
  return () => {
    const value = row.get()?.value;
    if (value === undefined) return null;
    let config: SsoConfig | null;
    try {
      config = ssoConfigFromAuthBlock(JSON.parse(value));
    } catch (err) {
      tellOnce(value, () => logger.warn({ err }, 'the AUTH setting is not valid JSON; single sign-on is off'));
      return null;
    }
    tellOnce(value, () => {
      const invalid = config ? createIpMatcher(config.proxies).invalid : [];
      if (invalid.length > 0) logger.warn({ invalid }, 'AUTH.trusted_proxies has entries that are not an address or CIDR block; they are ignored');
    });
    return config;
  };
}
