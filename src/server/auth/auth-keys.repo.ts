import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.ts';
import type { SecretBox } from '../db/secret-box.ts';

/** Named server secrets, created at random on first use and kept in the database so they survive a restart. */
export function createAuthKeysRepo(db: Db, box: SecretBox | null = null) {
  const insert = db.prepare('INSERT OR IGNORE INTO auth_keys (name, value) VALUES (?, ?)');
  const get = db.prepare<[string], { value: string }>('SELECT value FROM auth_keys WHERE name = ?');
  const cache = new Map<string, Buffer>();
  return {
    key(name: string): Buffer {
      const known = cache.get(name);
      if (known) return known;
      // INSERT OR IGNORE, then read back: two processes starting at once end up with the same key.
      const fresh = randomBytes(32).toString('base64');
      insert.run(name, box ? box.seal(fresh) : fresh);
      const stored = get.get(name)?.value ?? '';
      const value = Buffer.from((box ? box.open(stored) : stored) ?? '', 'base64');
      if (value.length < 32) throw new Error(`auth key '${name}' is missing or too short`);
      cache.set(name, value);
      return value;
    },
  };
}

export type AuthKeysRepo = ReturnType<typeof createAuthKeysRepo>;
