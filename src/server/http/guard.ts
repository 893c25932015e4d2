import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { type Access, roleAllows } from '../../shared/roles.ts';
import type { AuthService } from '../auth/auth.service.ts';
import { AppError } from '../core/errors.ts';
import type { AppEnv } from './context.ts';

export const SESSION_COOKIE = 'svc_session';
export const CSRF_HEADER = 'X-CSRF-Token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Resolves who is asking once per request, before any route runs: a trusted proxy's user
 * (by the socket's peer address in `ip`, never a forwarded-for header) or the session cookie.
 */
export function sessionMiddleware(auth: AuthService) {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set('auth', auth.resolve({ cookie: getCookie(c, SESSION_COOKIE), ip: c.get('peer'), header: (name) => c.req.header(name) }));
    await next();
  });
}

/**
 * The guard every route declares: authentication, role, and the CSRF token on
 * mutating requests. Public mutating routes (login, setup) need JSON bodies,
 * which a cross-site form cannot send without a CORS preflight.
 */
export function guard(access: Access) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const mutating = !SAFE_METHODS.has(c.req.method);
    if (access !== 'public') {
      const auth = c.get('auth');
      if (!auth) throw new AppError('unauthenticated', 'log in first');
      if (mutating && c.req.header(CSRF_HEADER) !== auth.csrf) {
        throw new AppError('csrf', `missing or wrong ${CSRF_HEADER} header`);
      }
      if (!roleAllows(auth.user.role, access)) {
        throw new AppError('forbidden', `this needs the role ${access}`, { params: { role: access } });
      }
    } else if (mutating && !(c.req.header('content-type') ?? '').startsWith('application/json')) {
      throw new AppError('validation', 'send the request body as application/json');
    }
    await next();
  });
}
