import { USER_NAME_PATTERN } from '../../shared/names.ts';
import type { Role } from '../../shared/roles.ts';
import { requireRole } from '../core/authorize.ts';
import { AppError, notFound } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import { tooManyAttempts, validateNewPassword } from './auth.service.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { LoginLimiter } from './rate-limit.ts';
import type { SessionsRepo } from './sessions.repo.ts';
import type { UserRecord, UsersRepo, WriteResult } from './users.repo.ts';

/** An account as the API shows it: never the hash. */
export interface UserView {
  name: string;
  role: Role;
  created_at: string;
  last_login_at: string | null;
}

export interface UserChangeInput {
  role?: Role | undefined;
  password?: string | undefined;
}

const view = (u: UserRecord): UserView => ({ name: u.name, role: u.role, created_at: u.createdAt, last_login_at: u.lastLoginAt });

function checkName(name: string): void {
  if (!USER_NAME_PATTERN.test(name)) throw new AppError('invalid_name', `'${name}' is not a valid user name`, { params: { name }, fields: ['name'] });
}

function refused(result: Extract<WriteResult, { ok: false }>, name: string): AppError {
  if (result.reason === 'not_found') return notFound('user', name);
  return new AppError('last_admin', `'${name}' is the last admin; make another account admin first`, { params: { name } });
}

export interface UsersDeps {
  users: UsersRepo;
  sessions: SessionsRepo;
  events: EventBus;
  clock: () => Date;
  limiter: LoginLimiter;
}

const emit = (d: UsersDeps, type: string, actor: Actor, target: string, detail?: Record<string, string | number | boolean>) =>
  d.events.emit({ type, actor, source: 'auth', target, status: 'ok', ...(detail ? { detail } : {}) });

async function create(d: UsersDeps, actor: Actor, input: { name: string; password: string; role: Role }): Promise<UserView> {
  requireRole(actor, 'admin', 'managing accounts');
  checkName(input.name);
  validateNewPassword(input.password);
  const hash = await hashPassword(input.password);
  const at = d.clock().toISOString();
  if (!d.users.insert(input.name, hash, input.role, at)) {
    throw new AppError('name_taken', `an account named '${input.name}' exists already`, { params: { name: input.name }, fields: ['name'] });
  }
  emit(d, 'user.created', actor, input.name, { role: input.role });
  return { name: input.name, role: input.role, created_at: at, last_login_at: null };
}

/**
 * Changes role and/or password in one step (both or neither). A new password ends every
 * session of the account, except `currentSession` when admins reset their own.
 */
async function update(d: UsersDeps, actor: Actor, name: string, change: UserChangeInput, currentSession: string | null = null): Promise<UserView> {
  requireRole(actor, 'admin', 'managing accounts');
  if (change.password !== undefined) validateNewPassword(change.password);
  const hash = change.password === undefined ? undefined : await hashPassword(change.password);
  const result = d.users.update(name, { role: change.role, hash });
  if (!result.ok) throw refused(result, name);
  const after = d.users.get(name);
  if (!after) throw notFound('user', name);
  if (change.role !== undefined && change.role !== result.before.role) {
    emit(d, 'user.role_changed', actor, name, { from: result.before.role, to: change.role });
  }
  if (hash !== undefined) {
    const ended = d.sessions.deleteForUser(name, name === actor.user ? currentSession : null);
    emit(d, 'user.password_changed', actor, name, { by: name === actor.user ? 'self' : 'admin', sessions_ended: ended });
  }
  return view(after);
}

/**
 * Every user may change their own password, with the current one as proof. Only the hash
 * changes (the role stays). The other sessions of the account end; the one asking stays.
 * Wrong guesses are rate limited per account, so a stolen session cannot brute-force it.
 */
async function changeOwnPassword(d: UsersDeps, actor: Actor, current: string, next: string, currentSession: string | null): Promise<void> {
  validateNewPassword(next, 'new_password');
  const key = `password:${actor.user}`;
  const now = d.clock().getTime();
  const wait = d.limiter.take(key, now);
  if (wait > 0) throw tooManyAttempts(wait);
  const user = d.users.get(actor.user);
  if (!user) throw new AppError('conflict', 'this account has no local password: the single sign-on proxy manages it');
  if (!(await verifyPassword(current, user.passwordHash))) {
    d.events.emit({
      type: 'user.password_changed',
      actor,
      source: 'auth',
      target: actor.user,
      status: 'failed',
      detail: { by: 'self', reason: 'wrong_password' },
    });
    throw new AppError('wrong_password', 'the current password is wrong', { fields: ['current_password'] });
  }
  d.limiter.forgive(key, now);
  const result = d.users.update(actor.user, { hash: await hashPassword(next) });
  if (!result.ok) throw refused(result, actor.user);
  const ended = d.sessions.deleteForUser(actor.user, currentSession);
  emit(d, 'user.password_changed', actor, actor.user, { by: 'self', sessions_ended: ended });
}

/**
 * Account management. Every operation takes the acting user first and checks the permission
 * itself, so a caller other than the HTTP guard cannot skip it. Events never carry a password
 * or a hash.
 */
export function createUsersService(deps: UsersDeps) {
  return {
    list(actor: Actor): UserView[] {
      requireRole(actor, 'admin', 'managing accounts');
      return deps.users.list().map(view);
    },
    create: (actor: Actor, input: { name: string; password: string; role: Role }) => create(deps, actor, input),
    /** Changes role and/or password in one step; a new password ends the account's other sessions. */
    update: (actor: Actor, name: string, change: UserChangeInput, currentSession?: string | null) => update(deps, actor, name, change, currentSession),
    /** Deletes an account; its sessions end with it (the database cascades). */
    remove(actor: Actor, name: string): void {
      requireRole(actor, 'admin', 'managing accounts');
      const result = deps.users.remove(name);
      if (!result.ok) throw refused(result, name);
      emit(deps, 'user.deleted', actor, name, { role: result.before.role });
    },
    /** Every user's own password, with the current one as proof; wrong guesses are rate limited. */
    changeOwnPassword: (actor: Actor, current: string, next: string, currentSession: string | null) =>
      changeOwnPassword(deps, actor, current, next, currentSession),
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
