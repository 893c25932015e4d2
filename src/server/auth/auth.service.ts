import { USER_NAME_PATTERN } from '../../shared/names.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../shared/passwords.ts';
import type { Role } from '../../shared/roles.ts';
import { AppError } from '../core/errors.ts';
import type { EventBus } from '../core/events.ts';
import type { DevicesRepo } from './devices.repo.ts';
import type { LoginBackoff } from './login-backoff.ts';
import { DUMMY_HASH_PROMISE, hashPassword, verifyPassword } from './passwords.ts';
import type { SessionsRepo } from './sessions.repo.ts';
import type { SsoResolver } from './sso.ts';
import type { UsersRepo } from './users.repo.ts';

export interface CurrentUser {
  name: string;
  role: Role;
}

export interface Authenticated {
  user: CurrentUser;
  csrf: string;
  /** True when a trusted proxy vouched for the user; there is no session then. */
  sso: boolean;
  /** The session cookie value, so a password change can keep the session that made it. */
  sessionId: string | null;
}

/** What a request offers as proof of identity. */
export interface RequestIdentity {
  cookie: string | undefined;
  /** The socket's peer address. */
  ip: string;
  header: (name: string) => string | null | undefined;
}

const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

/** The rules of a new password; the HTTP schema checks the same, this guards other callers. */
export function validateNewPassword(password: string, field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new AppError('validation', `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`, {
      params: { min: MIN_PASSWORD_LENGTH, max: MAX_PASSWORD_LENGTH },
      fields: [field],
    });
  }
}

export function validateCredentialsInput(username: string, password: string): void {
  if (!USER_NAME_PATTERN.test(username)) {
    throw new AppError('invalid_name', `user name '${username}' must be lower-case letters, digits, '.', '@', '_' or '-'`, {
      params: { name: username },
      fields: ['username'],
    });
  }
  validateNewPassword(password);
}

export function tooManyAttempts(waitMs: number): AppError {
  return new AppError('rate_limited', 'too many failed attempts; try again later', { params: { retry_after: Math.ceil(waitMs / 1000) } });
}

export interface AuthDeps {
  users: UsersRepo;
  sessions: SessionsRepo;
  devices: DevicesRepo;
  events: EventBus;
  clock: () => Date;
  backoff: LoginBackoff;
  sso: SsoResolver;
}

/**
 * Opens a session; `device` is the key of the known device that signed in, if any. Any other
 * browser becomes a known device of the account: `deviceId` is then its new cookie value.
 */
function open(d: AuthDeps, name: string, role: Role, device: string | null = null) {
  const s = d.sessions.create(name, d.clock(), SESSION_TTL_MS);
  d.users.touchLogin(name, d.clock().toISOString());
  if (device) d.devices.used(device, d.clock());
  const deviceId = device ? null : d.devices.create(name, d.clock());
  return { sessionId: s.id, deviceId, user: { name, role }, csrf: s.csrf };
}

/** Creates the first account (always admin) and logs it in; refused once any account exists. */
async function setup(d: AuthDeps, username: string, password: string, ip: string) {
  // Checked before any work: after setup this route must cost a caller nothing (no hashing).
  if (d.users.count() > 0) throw new AppError('setup_done', 'an account exists already; log in instead');
  validateCredentialsInput(username, password);
  const hash = await hashPassword(password);
  if (!d.users.insertFirst(username, hash, d.clock().toISOString())) {
    throw new AppError('setup_done', 'an account exists already; log in instead');
  }
  d.events.emit({
    type: 'user.created',
    actor: { user: username, role: 'admin', ip },
    source: 'auth',
    target: username,
    status: 'ok',
    detail: { role: 'admin' },
  });
  return open(d, username, 'admin');
}

/**
 * The back-off (per known device, per client address, per account and address) is asked
 * before the account is looked up, and an unknown user is checked against a dummy hash:
 * neither the answer nor its timing tells whether the account exists. `deviceCookie` is the
 * known-device cookie the browser sent; it earns a budget of its own, never access.
 */
async function login(d: AuthDeps, username: string, password: string, ip: string, deviceCookie?: string) {
  const now = d.clock().getTime();
  const device = deviceCookie ? d.devices.find(deviceCookie, username, d.clock()) : null;
  const wait = d.backoff.take(username, ip, now, device);
  if (wait > 0) throw tooManyAttempts(wait);
  const user = d.users.get(username);
  const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH_PROMISE));
  if (!user || !ok) {
    d.events.emit({ type: 'user.login', actor: null, source: 'auth', target: username, status: 'failed', detail: { ip } });
    throw new AppError('bad_credentials', 'user name or password is wrong');
  }
  d.backoff.succeeded(username, ip, now, device);
  d.events.emit({ type: 'user.login', actor: { user: user.name, role: user.role, ip }, source: 'auth', status: 'ok' });
  return open(d, user.name, user.role, device);
}

/**
 * Who is asking: the trusted proxy's user when there is one, else the session cookie's.
 * The role is read fresh on every request, so a role change applies to the next one.
 */
function resolve(d: AuthDeps, req: RequestIdentity): Authenticated | null {
  const proxied = d.sso.resolve(req.ip, req.header);
  if (proxied) return { ...proxied, sso: true, sessionId: null };
  if (!req.cookie) return null;
  const s = d.sessions.find(req.cookie, d.clock());
  if (!s) return null;
  const user = d.users.get(s.userName);
  if (!user) return null;
  return { user: { name: user.name, role: user.role }, csrf: s.csrf, sso: false, sessionId: req.cookie };
}

export function createAuthService(deps: AuthDeps) {
  return {
    setupRequired: (): boolean => deps.users.count() === 0,
    /** Creates the first account (always admin) and logs it in; refused once any account exists. */
    setup: (username: string, password: string, ip: string) => setup(deps, username, password, ip),
    /** Signs in, within the back-off; an unknown user costs the same as a wrong password. */
    login: (username: string, password: string, ip: string, deviceCookie?: string) => login(deps, username, password, ip, deviceCookie),
    /** Ends the request's session; `cookie` also covers a stale session sent alongside a proxy login. */
    logout(auth: Authenticated, ip: string, cookie?: string): void {
      const id = auth.sessionId ?? cookie;
      if (!id) return;
      deps.sessions.delete(id);
      deps.events.emit({ type: 'user.logout', actor: { user: auth.user.name, role: auth.user.role, ip }, source: 'auth', status: 'ok' });
    },
    /** Who is asking: the trusted proxy's user, else the session cookie's (the role read fresh). */
    resolve: (req: RequestIdentity): Authenticated | null => resolve(deps, req),
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
