import type { Db } from '../db/db.ts';
import type { SecretBox } from '../db/secret-box.ts';

/** The `settings(key, value)` table; each value is stored as JSON. */
export interface SettingsRepo {
  /** Every stored key with its parsed value; a value that is not valid JSON is skipped. */
  all(): Map<string, unknown>;
  get(key: string): unknown;
  /** Writes and removes keys in one transaction. */
  write(changes: { set: Record<string, unknown>; remove: string[] }): void;
}

/** The values of `sealed` keys (secrets) are stored encrypted with `box`; the rest as they are. */
export function createSettingsRepo(db: Db, box: SecretBox | null = null, sealed: readonly string[] = []): SettingsRepo {
  const sealedKey = (key: string) => box !== null && sealed.includes(key);
  const toStored = (key: string, value: unknown) => (sealedKey(key) && typeof value === 'string' && value !== '' && box ? box.seal(value) : value);
  const fromStored = (key: string, value: unknown) => (sealedKey(key) && typeof value === 'string' && box ? box.open(value) : value);
  const selectAll = db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings');
  const selectOne = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
  const upsert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const remove = db.prepare('DELETE FROM settings WHERE key = ?');

  const parse = (text: string): { ok: true; value: unknown } | { ok: false } => {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      // A hand-edited value that is not JSON counts as absent, so its default applies.
      return { ok: false };
    }
  };

  const write = db.transaction((changes: { set: Record<string, unknown>; remove: string[] }) => {
    for (const [key, value] of Object.entries(changes.set)) upsert.run(key, JSON.stringify(toStored(key, value)));
    for (const key of changes.remove) remove.run(key);
  });

  return {
    all() {
      const out = new Map<string, unknown>();
      for (const row of selectAll.all()) {
        const p = parse(row.value);
        if (p.ok) out.set(row.key, fromStored(row.key, p.value));
      }
      return out;
    },
    get(key) {
      const row = selectOne.get(key);
      if (!row) return undefined;
      const p = parse(row.value);
      return p.ok ? fromStored(key, p.value) : undefined;
    },
    write: (changes) => write(changes),
  };
}
