import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { AuthStatus, Credentials, LoginAnswer } from '../../../shared/api.ts';
import type { AuthService } from '../../auth/auth.service.ts';
import { DEVICE_TTL_MS } from '../../auth/devices.repo.ts';
import { AppError } from '../../core/errors.ts';
import type { AppEnv } from '../context.ts';
import { SESSION_COOKIE } from '../guard.ts';
import { json, routeGroup } from '../route.ts';

const { get, post } = routeGroup('auth');

const status = get('/api/auth/status', 'public', { 200: AuthStatus, problems: false }).summary('Whether setup is needed, who is logged in, and the CSRF token');
const setup = post('/api/auth/setup', 'public', { body: Credentials, 201: json(LoginAnswer, 'created and logged in') }).summary(
  'Create the first account (admin) while none exists',
);
const login = post('/api/auth/login', 'public', { body: Credentials, 200: LoginAnswer }).summary('Log in; sets the session cookie and the known-device cookie');
const logout = post('/api/auth/logout', 'viewer', { 204: { description: 'logged out' } }).summary('End the session');

/** The known-device cookie: sent to the auth routes only, where the login reads it. */
const DEVICE_COOKIE = 'svc_device';
const DEVICE_PATH = '/api/auth';

function setSession(c: Context<AppEnv>, s: { sessionId: string; deviceId: string | null }): void {
  // Secure over HTTPS, direct or at a trusted proxy (X-Forwarded-Proto from anyone else is ignored).
  const secure = c.get('https');
  // The session cookie comes first: simple clients keep the first cookie of an answer.
  setCookie(c, SESSION_COOKIE, s.sessionId, { httpOnly: true, sameSite: 'Strict', secure, path: '/', maxAge: 7 * 24 * 3600 });
  if (s.deviceId) {
    setCookie(c, DEVICE_COOKIE, s.deviceId, { httpOnly: true, sameSite: 'Strict', secure, path: DEVICE_PATH, maxAge: DEVICE_TTL_MS / 1000 });
  }
}

export function authRoutes(app: OpenAPIHono<AppEnv>, auth: AuthService): void {
  // Once an account exists, setup is refused before its body is even read.
  app.use(setup.path, async (c, next) => {
    if (c.req.method === 'POST' && !auth.setupRequired()) throw new AppError('setup_done', 'an account exists already; log in instead');
    await next();
  });
  app.openapi(status, (c) => {
    const a = c.get('auth');
    return c.json({ setup_required: auth.setupRequired(), user: a?.user ?? null, csrf: a?.csrf ?? null, sso: a?.sso ?? false }, 200);
  });
  app.openapi(setup, async (c) => {
    const { username, password } = c.req.valid('json');
    const s = await auth.setup(username, password, c.get('ip'));
    setSession(c, s);
    return c.json({ user: s.user, csrf: s.csrf }, 201);
  });
  app.openapi(login, async (c) => {
    const { username, password } = c.req.valid('json');
    const s = await auth.login(username, password, c.get('ip'), getCookie(c, DEVICE_COOKIE));
    setSession(c, s);
    return c.json({ user: s.user, csrf: s.csrf }, 200);
  });
  // A single sign-on user stays logged in at the proxy; only a session cookie Kade issued ends here.
  app.openapi(logout, (c) => {
    const a = c.get('auth');
    if (a) auth.logout(a, c.get('ip'), getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.body(null, 204);
  });
}
