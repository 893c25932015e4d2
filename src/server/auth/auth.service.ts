import { USER_NAME_PATTERN } from '../../shared/names.ts';
import type { Role } from '../../shared/roles.ts';
import { AppError } from '../core/errors.ts';
import type { EventBus } from '../core/events.ts';
import { DUMMY_HASH_PROMISE, hashPassword, verifyPassword } from './passwords.ts';
import { createLoginLimiter } from './rate-limit.ts';
import type { SessionsRepo } from './sessions.repo.ts';
import type { UsersRepo } from './users.repo.ts';

export interface CurrentUser {
  name: string;
  role: Role;
}

export interface Authenticated {
  user: CurrentUser;
  csrf: string;
}

const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
export const MIN_PASSWORD_LENGTH = 8;

export function validateCredentialsInput(username: string, password: string): void {
  if (!USER_NAME_PATTERN.test(username)) {
    throw new AppError('invalid_name', `user name '${username}' must be lower-case letters, digits, '.', '@', '_' or '-'`, {
      params: { name: username },
      fields: ['username'],
    });
  }
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('validation', `password must be at least ${MIN_PASSWORD_LENGTH} characters`, {
      params: { min: MIN_PASSWORD_LENGTH },
      fields: ['password'],
    });
  }
}

export function createAuthService(deps: { users: UsersRepo; sessions: SessionsRepo; events: EventBus; clock: () => Date }) {
  const { users, sessions, events, clock } = deps;
  const limiter = createLoginLimiter({ max: 5, windowMs: 60_000 });

  const open = (name: string, role: Role) => {
    const s = sessions.create(name, clock(), SESSION_TTL_MS);
    users.touchLogin(name, clock().toISOString());
    return { sessionId: s.id, user: { name, role }, csrf: s.csrf };
  };

  return {
    setupRequired: (): boolean => users.count() === 0,

    /** Creates the first account (always admin) and logs it in; refused once any account exists. */
    async setup(username: string, password: string, ip: string) {
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
      });
      return open(username, 'admin');
    },

    async login(username: string, password: string, ip: string) {
      const now = clock().getTime();
      const wait = limiter.retryAfter(ip, now);
      if (wait > 0) {
        throw new AppError('rate_limited', 'too many failed logins; try again later', {
          params: { retry_after: Math.ceil(wait / 1000) },
        });
      }
      const user = users.get(username);
      // Verify against a dummy hash for unknown users so the timing does not reveal them.
      const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH_PROMISE));
      if (!user || !ok) {
        limiter.fail(ip, now);
        events.emit({ type: 'user.login', actor: null, source: 'auth', target: username, status: 'failed', detail: { ip } });
        throw new AppError('bad_credentials', 'user name or password is wrong');
      }
      limiter.reset(ip);
      events.emit({ type: 'user.login', actor: { user: user.name, role: user.role, ip }, source: 'auth', status: 'ok' });
      return open(user.name, user.role);
    },

    logout(sessionId: string): void {
      sessions.delete(sessionId);
    },

    /** The user behind a session cookie, with the role read fresh so a role change applies at once. */
    resolve(sessionId: string | undefined): Authenticated | null {
      if (!sessionId) return null;
      const s = sessions.find(sessionId, clock());
      if (!s) return null;
      const user = users.get(s.userName);
      if (!user) return null;
      return { user: { name: user.name, role: user.role }, csrf: s.csrf };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
