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

export function createAuthService(deps: {
  users: UsersRepo;
  sessions: SessionsRepo;
  devices: DevicesRepo;
  events: EventBus;
  clock: () => Date;
  backoff: LoginBackoff;
  sso: SsoResolver;
}) {
  const { users, sessions, devices, events, clock, backoff, sso } = deps;

  /**
   * Opens a session; `device` is the key of the known device that signed in, if any. Any other
   * browser becomes a known device of the account: `deviceId` is then its new cookie value.
   */
  const open = (name: string, role: Role, device: string | null = null) => {
    const s = sessions.create(name, clock(), SESSION_TTL_MS);
    users.touchLogin(name, clock().toISOString());
    if (device) devices.used(device, clock());
    const deviceId = device ? null : devices.create(name, clock());
    return { sessionId: s.id, deviceId, user: { name, role }, csrf: s.csrf };
  };

  return {
    setupRequired: (): boolean => users.count() === 0,

    /** Creates the first account (always admin) and logs it in; refused once any account exists. */
    async setup(username: string, password: string, ip: string) {
      // Checked before any work: after setup this route must cost a caller nothing (no hashing).
      if (users.count() > 0) throw new AppError('setup_done', 'an account exists already; log in instead');
      validateCredentialsInput(username, password);
      const hash = await hashPassword(password);
      if (!users.insertFirst(username, hash, clock().toISOString())) {
        throw new AppError('setup_done', 'an account exists already; log in instead');
      }
      events.emit({
        type: 'user.created',
        actor: { user: username, role: 'admin', ip },
        source: 'auth',
        target: username,
        status: 'ok',
        detail: { role: 'admin' },
      });
      return open(username, 'admin');
    },

    /**
     * The back-off (per known device, per client address, per account and address) is asked
     * before the account is looked up, and an unknown user is checked against a dummy hash:
     * neither the answer nor its timing tells whether the account exists. `deviceCookie` is the
     * known-device cookie the browser sent; it earns a budget of its own, never access.
     */
    async login(username: string, password: string, ip: string, deviceCookie?: string) {
      const now = clock().getTime();
      const device = deviceCookie ? devices.find(deviceCookie, username, clock()) : null;
      const wait = backoff.take(username, ip, now, device);
      if (wait > 0) throw tooManyAttempts(wait);
      const user = users.get(username);
      const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH_PROMISE));
      if (!user || !ok) {
        events.emit({ type: 'user.login', actor: null, source: 'auth', target: username, status: 'failed', detail: { ip } });
        throw new AppError('bad_credentials', 'user name or password is wrong');
      }
      backoff.succeeded(username, ip, now, device);
      events.emit({ type: 'user.login', actor: { user: user.name, role: user.role, ip }, source: 'auth', status: 'ok' });
      return open(user.name, user.role, device);
    },

    /** Ends the request's session; `cookie` also covers a stale session sent alongside a proxy login. */
    logout(auth: Authenticated, ip: string, cookie?: string): void {
      const id = auth.sessionId ?? cookie;
      if (!id) return;
      sessions.delete(id);
      events.emit({ type: 'user.logout', actor: { user: auth.user.name, role: auth.user.role, ip }, source: 'auth', status: 'ok' });
    },

    /**
     * Who is asking: the trusted proxy's user when there is one, else the session cookie's.
     * The role is read fresh on every request, so a role change applies to the next one.
     */
    resolve(req: RequestIdentity): Authenticated | null {
      const proxied = sso.resolve(req.ip, req.header);
      if (proxied) return { ...proxied, sso: true, sessionId: null };
      if (!req.cookie) return null;
      const s = sessions.find(req.cookie, clock());
      if (!s) return null;
      const user = users.get(s.userName);
      if (!user) return null;
      return { user: { name: user.name, role: user.role }, csrf: s.csrf, sso: false, sessionId: req.cookie };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
