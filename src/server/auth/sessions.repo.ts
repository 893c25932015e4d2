import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/db.ts';

export interface Session {
  userName: string;
  csrf: string;
  expiresAt: string;
}

// The cookie value is a random id; only its hash is stored, so a leaked database opens no session.
const hashId = (id: string) => createHash('sha256').update(id).digest('hex');

export function createSessionsRepo(db: Db) {
  const insert = db.prepare('INSERT INTO sessions (id_hash, user_name, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)');
  const get = db.prepare<[string], { user_name: string; csrf: string; expires_at: string }>(
    'SELECT user_name, csrf, expires_at FROM sessions WHERE id_hash = ?',
  );
  const del = db.prepare('DELETE FROM sessions WHERE id_hash = ?');
  const delUser = db.prepare('DELETE FROM sessions WHERE user_name = ?');
  const delUserExcept = db.prepare('DELETE FROM sessions WHERE user_name = ? AND id_hash != ?');
  const purge = db.prepare('DELETE FROM sessions WHERE expires_at < ?');
  return {
    create(userName: string, now: Date, ttlMs: number): { id: string; csrf: string } {
      const id = randomBytes(32).toString('base64url');
      const csrf = randomBytes(24).toString('base64url');
      purge.run(now.toISOString());
      insert.run(hashId(id), userName, csrf, now.toISOString(), new Date(now.getTime() + ttlMs).toISOString());
      return { id, csrf };
    },
    find(id: string, now: Date): Session | null {
      const row = get.get(hashId(id));
      if (!row || row.expires_at < now.toISOString()) return null;
      return { userName: row.user_name, csrf: row.csrf, expiresAt: row.expires_at };
    },
    delete(id: string): void {
      del.run(hashId(id));
    },
    /** Ends every session of a user, except `keepId` when given (the one that asked for it). */
    deleteForUser(userName: string, keepId: string | null = null): number {
      return (keepId ? delUserExcept.run(userName, hashId(keepId)) : delUser.run(userName)).changes;
    },
  };
}

export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
