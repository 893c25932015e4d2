import { ROLES, type Role } from '../../shared/roles.ts';
import type { Db } from '../db/db.ts';

export interface UserRecord {
  name: string;
  passwordHash: string;
  role: Role;
  createdAt: string;
  lastLoginAt: string | null;
}

interface Row {
  name: string;
  password_hash: string;
  role: string | null;
  created_at: string;
  last_login_at: string | null;
}

/** What a guarded write did; the service turns refusals into errors. */
export type WriteResult = { ok: true; before: UserRecord } | { ok: false; reason: 'not_found' | 'last_admin' };

const toRecord = (r: Row): UserRecord => ({
  name: r.name,
  passwordHash: r.password_hash,
  // SPEC: an account without a role counts as admin. The schema forbids writing one; this reads old data.
  role: r.role === 'operator' || r.role === 'viewer' ? r.role : 'admin',
  createdAt: r.created_at,
  lastLoginAt: r.last_login_at,
});

// Every write names its role explicitly; this catches an undefined slipping through an `as` cast.
function checkedRole(role: Role): Role {
  if (!ROLES.includes(role)) throw new Error(`refusing to store an account with role '${String(role)}'`);
  return role;
}

export function createUsersRepo(db: Db) {
  const byName = db.prepare<[string], Row>('SELECT * FROM users WHERE name = ?');
  const all = db.prepare<[], Row>('SELECT * FROM users ORDER BY name');
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users');
  // Counted the way toRecord reads roles, so a legacy row without a role counts as the admin it is.
  const admins = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM users WHERE coalesce(role, '') NOT IN ('operator', 'viewer')");
  const insert = db.prepare('INSERT INTO users (name, password_hash, role, created_at) VALUES (?, ?, ?, ?)');
  const touch = db.prepare('UPDATE users SET last_login_at = ? WHERE name = ?');
  const setRole = db.prepare('UPDATE users SET role = ? WHERE name = ?');
  // Only the hash column: a password change can never touch, or lose, the role.
  const setHash = db.prepare('UPDATE users SET password_hash = ? WHERE name = ?');
  const del = db.prepare('DELETE FROM users WHERE name = ?');

  const get = (name: string): UserRecord | null => {
    const r = byName.get(name);
    return r ? toRecord(r) : null;
  };
  /** Whether removing `before`'s admin role would leave no admin. Called inside the write transaction. */
  const wouldOrphan = (before: UserRecord, roleAfter: Role | null) => before.role === 'admin' && roleAfter !== 'admin' && (admins.get()?.n ?? 0) <= 1;

  return {
    get,
    list: (): UserRecord[] => all.all().map(toRecord),
    count: (): number => count.get()?.n ?? 0,
    /** Inserts only when no account exists yet, atomically, so two setup calls cannot both win. */
    insertFirst: (name: string, hash: string, at: string): boolean =>
      db.transaction(() => {
        if ((count.get()?.n ?? 0) > 0) return false;
        insert.run(name, hash, 'admin', at);
        return true;
      })(),
    /** Inserts a new account; false when the name is taken. */
    insert: (name: string, hash: string, role: Role, at: string): boolean =>
      db.transaction(() => {
        if (byName.get(name)) return false;
        insert.run(name, hash, checkedRole(role), at);
        return true;
      })(),
    /**
     * Changes role and/or hash in one transaction that also counts the admins, so two demotions
     * racing each other cannot both pass the last-admin check. IMMEDIATE takes the write lock
     * before the count, which holds even against another process on the same database.
     */
    update: (name: string, change: { role?: Role | undefined; hash?: string | undefined }): WriteResult =>
      db
        .transaction((): WriteResult => {
          const before = get(name);
          if (!before) return { ok: false, reason: 'not_found' };
          if (change.role !== undefined) {
            if (wouldOrphan(before, change.role)) return { ok: false, reason: 'last_admin' };
            setRole.run(checkedRole(change.role), name);
          }
          if (change.hash !== undefined) setHash.run(change.hash, name);
          return { ok: true, before };
        })
        .immediate(),
    /** Deletes an account (its sessions go with it), unless it is the last admin. */
    remove: (name: string): WriteResult =>
      db
        .transaction((): WriteResult => {
          const before = get(name);
          if (!before) return { ok: false, reason: 'not_found' };
          if (wouldOrphan(before, null)) return { ok: false, reason: 'last_admin' };
          del.run(name);
          return { ok: true, before };
        })
        .immediate(),
    touchLogin: (name: string, at: string): void => {
      touch.run(at, name);
    },
  };
}

export type UsersRepo = ReturnType<typeof createUsersRepo>;
