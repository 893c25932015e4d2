import type { Context } from 'hono';
import type { Authenticated } from '../auth/auth.service.ts';
import type { Actor } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';

export interface AppEnv {
  Variables: {
    auth: Authenticated | null;
    requestId: string;
    log: Logger;
    ip: string;
  };
}

/** The acting user of an authenticated route, with the client address captured now. */
export function actorOf(c: Context<AppEnv>): Actor {
  const auth = c.get('auth');
  if (!auth) throw new Error('actorOf called on a route without authentication');
  return { user: auth.user.name, role: auth.user.role, ip: c.get('ip') };
}
