import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.ts';

export type Db = Database.Database;

/** Opens (or creates) Kade's SQLite database and brings its schema up to date. */
export function openDb(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let i = current; i < MIGRATIONS.length; i++) {
    const step = MIGRATIONS[i] ?? '';
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${i + 1}`);
    })();
  }
  return db;
}
