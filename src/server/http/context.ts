import type { Context } from 'hono';
import type { Authenticated } from '../auth/auth.service.ts';
import type { Actor } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';

export interface AppEnv {
  Variables: {
    auth: Authenticated | null;
    requestId: string;
    log: Logger;
    /** The client's address (from a trusted proxy's X-Forwarded-For, else the socket's peer). */
    ip: string;
    /** The socket's own peer address: the only one single sign-on trusts. */
    peer: string;
    /** Whether the client reached Kade over HTTPS, directly or at a trusted proxy. */
    https: boolean;
  };
}

/** The acting user of an authenticated route, with the client address captured now. */
/** The host name the request came in on (an app's address is shown on it). */
export const hostOf = (c: Context<AppEnv>): string => new URL(c.req.url).hostname;

export function actorOf(c: Context<AppEnv>): Actor {
  const auth = c.get('auth');
  if (!auth) throw new Error('actorOf called on a route without authentication');
  return { user: auth.user.name, role: auth.user.role, ip: c.get('ip') };
}
