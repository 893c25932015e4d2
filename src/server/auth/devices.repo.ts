import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/db.ts';

/** How long a device unused stays known; the cookie lives as long (browsers cap cookies at 400 days). */
export const DEVICE_TTL_MS = 365 * 24 * 3600 * 1000;

// A user signing in from many browsers keeps the newest ones; older rows only cost space.
const MAX_DEVICES_PER_USER = 20;

// Only the hash is stored, as for sessions: a leaked database names no device cookie.
const hashId = (id: string) => createHash('sha256').update(id).digest('hex');

/**
 * Browsers that signed in to an account before. The cookie is no credential (the password is
 * still checked); it only earns its holder a login budget of its own.
 */
export function createDevicesRepo(db: Db) {
  const insert = db.prepare('INSERT INTO known_devices (id_hash, user_name, created_at, used_at) VALUES (?, ?, ?, ?)');
  const owner = db.prepare<[string, string], { user_name: string }>('SELECT user_name FROM known_devices WHERE id_hash = ? AND used_at >= ?');
  const touch = db.prepare('UPDATE known_devices SET used_at = ? WHERE id_hash = ?');
  const purge = db.prepare('DELETE FROM known_devices WHERE used_at < ?');
  const trim = db.prepare(
    `DELETE FROM known_devices WHERE user_name = ? AND id_hash NOT IN
       (SELECT id_hash FROM known_devices WHERE user_name = ? ORDER BY used_at DESC LIMIT ${MAX_DEVICES_PER_USER})`,
  );
  const since = (now: Date) => new Date(now.getTime() - DEVICE_TTL_MS).toISOString();
  return {
    /** The key of a device known for `userName` (the hash of its cookie), or null. */
    find(id: string, userName: string, now: Date): string | null {
      const key = hashId(id);
      return owner.get(key, since(now))?.user_name === userName ? key : null;
    },
    /** Notes a new device for the user and answers its cookie value. */
    create(userName: string, now: Date): string {
      const id = randomBytes(32).toString('base64url');
      purge.run(since(now));
      insert.run(hashId(id), userName, now.toISOString(), now.toISOString());
      trim.run(userName, userName);
      return id;
    },
    /** The device signed in again: it stays known for another full term. */
    used(key: string, now: Date): void {
      touch.run(now.toISOString(), key);
    },
  };
}

export type DevicesRepo = ReturnType<typeof createDevicesRepo>;
