import type { Db } from './db.ts';
import type { SecretBox } from './secret-box.ts';

/**
 * Seals the secrets an older version stored in plain text: repo tokens, the settings in
 * `settingKeys` (stored as JSON strings) and the auth keys. Runs at every start, in one
 * transaction, then checkpoints the WAL so the plain values leave the database files.
 * Returns how many values it sealed.
 */
export function sealStoredSecrets(db: Db, box: SecretBox, settingKeys: readonly string[]): number {
  let sealed = 0;
  const seal = (plain: string) => {
    sealed++;
    return box.seal(plain);
  };
  db.transaction(() => {
    const repos = db.prepare<[], { id: string; token: string }>("SELECT id, token FROM repos WHERE token IS NOT NULL AND token != ''").all();
    const setToken = db.prepare('UPDATE repos SET token = ? WHERE id = ?');
    for (const r of repos) if (!box.isSealed(r.token)) setToken.run(seal(r.token), r.id);

    const getSetting = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
    const setSetting = db.prepare('UPDATE settings SET value = ? WHERE key = ?');
    for (const key of settingKeys) {
      const row = getSetting.get(key);
      let value: unknown;
      try {
        value = row ? JSON.parse(row.value) : undefined;
      } catch {
        value = row?.value; // Not JSON (hand-edited): still a secret, sealed as the text it is.
      }
      if (typeof value === 'string' && value !== '' && !box.isSealed(value)) setSetting.run(JSON.stringify(seal(value)), key);
    }

    const keys = db.prepare<[], { name: string; value: string }>('SELECT name, value FROM auth_keys').all();
    const setKey = db.prepare('UPDATE auth_keys SET value = ? WHERE name = ?');
    for (const k of keys) if (!box.isSealed(k.value)) setKey.run(seal(k.value), k.name);
  })();
  if (sealed > 0) db.pragma('wal_checkpoint(TRUNCATE)');
  return sealed;
}
