import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { createMiddleware } from 'hono/factory';
import { AppError } from '../core/errors.ts';
import { normaliseIp } from '../core/ip-match.ts';
import type { AppEnv } from './context.ts';

/** The host part of a Host header, lower-case, without port or IPv6 brackets; '' when it cannot be read. */
export function hostOf(header: string | undefined): string {
  const h = (header ?? '').trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colons = h.split(':').length - 1;
  // One colon separates the port; more than one is a bare IPv6 address.
  return colons === 1 ? (h.split(':')[0] ?? '') : h.replace(/\.$/, '');
}

/** The names and addresses a request may use while setup is not done: this machine's own, the bind address and SVC_ALLOWED_HOSTS. */
export function ownHostNames(bind: string, allowed: readonly string[]): Set<string> {
  const names = new Set(['localhost', 'localhost.localdomain', ...allowed]);
  if (bind !== '0.0.0.0' && bind !== '::') names.add(normaliseIp(bind.toLowerCase()));
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) names.add(normaliseIp(a.address.toLowerCase()).replace(/%.*$/, ''));
  }
  return names;
}

/**
 * DNS-rebinding defence: until the first account exists, a request whose Host is a name that
 * is not this machine's own or a configured one is refused (an IP address cannot be rebound), so a page on another site that
 * rebinds its name to this machine cannot claim the admin account. Once setup is done,
 * every request needs a session, which such a page never has.
 */
export function hostCheck(deps: { setupRequired: () => boolean; bind: string; allowed: readonly string[] }) {
  let done = false;
  // Read at the first request that needs them, not at start: a host with many containers has as many interfaces.
  let names: Set<string> | null = null;
  // A literal IP address cannot be rebound: DNS rebinding needs a name, so any address is fine.
  const known = (host: string) => {
    if (isIP(host) !== 0 || host.endsWith('.localhost')) return true;
    names ??= ownHostNames(deps.bind, deps.allowed);
    return names.has(host);
  };
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!done && c.req.path !== '/healthz') {
      done = !deps.setupRequired();
      const host = hostOf(c.req.header('host'));
      if (!done && !known(host)) {
        // Addresses can change (DHCP), so the interfaces are read again before a refusal.
        names = ownHostNames(deps.bind, deps.allowed);
        if (!known(host)) {
          throw new AppError(
            'host_not_allowed',
            `until setup is done Kade answers only to its own addresses; add '${host}' to SVC_ALLOWED_HOSTS to use this name`,
            {
              params: { host },
            },
          );
        }
      }
    }
    await next();
  });
}
