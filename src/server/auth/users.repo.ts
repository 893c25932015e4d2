import type { Role } from '../../shared/roles.ts';
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
  role: string;
  created_at: string;
  last_login_at: string | null;
}

const toRecord = (r: Row): UserRecord => ({
  name: r.name,
  passwordHash: r.password_hash,
  // SPEC: an account without a role counts as admin. The schema forbids writing one; this reads old data.
  role: r.role === 'operator' || r.role === 'viewer' ? r.role : 'admin',
  createdAt: r.created_at,
  lastLoginAt: r.last_login_at,
});

export function createUsersRepo(db: Db) {
  const byName = db.prepare<[string], Row>('SELECT * FROM users WHERE name = ?');
  const all = db.prepare<[], Row>('SELECT * FROM users ORDER BY name');
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users');
  const insert = db.prepare('INSERT INTO users (name, password_hash, role, created_at) VALUES (?, ?, ?, ?)');
  const touch = db.prepare('UPDATE users SET last_login_at = ? WHERE name = ?');
  return {
    get: (name: string): UserRecord | null => {
      const r = byName.get(name);
      return r ? toRecord(r) : null;
    },
    list: (): UserRecord[] => all.all().map(toRecord),
    count: (): number => count.get()?.n ?? 0,
    /** Inserts only when no account exists yet, atomically, so two setup calls cannot both win. */
    insertFirst: (name: string, hash: string, at: string): boolean =>
      db.transaction(() => {
        if ((count.get()?.n ?? 0) > 0) return false;
        insert.run(name, hash, 'admin', at);
        return true;
      })(),
    insert: (name: string, hash: string, role: Role, at: string): void => {
      insert.run(name, hash, role, at);
    },
    touchLogin: (name: string, at: string): void => {
      touch.run(at, name);
    },
  };
}

export type UsersRepo = ReturnType<typeof createUsersRepo>;
