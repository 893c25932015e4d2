import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.ts';

export type Db = Database.Database;

/** The database and its WAL and shared-memory files: readable by Kade's own user only. */
export function restrictDbFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

/** Opens (or creates) Kade's SQLite database and brings its schema up to date. */
export function openDb(file: string): Db {
  // Created 0600 before SQLite opens it, so it is never readable by others, not even for a moment.
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Deleted and overwritten content is zeroed, so a secret replaced by its sealed form leaves no trace in the file.
  db.pragma('secure_delete = ON');
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let i = current; i < MIGRATIONS.length; i++) {
    const step = MIGRATIONS[i] ?? '';
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${i + 1}`);
    })();
  }
  restrictDbFiles(file);
  return db;
}
