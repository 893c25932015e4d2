import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, linkSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/fs-atomic.ts';

const PREFIX = 'enc:v1:';
const IV = 12;
const TAG = 16;

/** The key file's name inside SVC_DATA; kept apart from the database, so a copied database alone reveals no secret. */
export const KEY_FILE = 'secret.key';

/** Encrypts secrets kept in the database (AES-256-GCM) with a key from its own 0600 file. */
export interface SecretBox {
  seal(plain: string): string;
  /** The plain text of a sealed value; a value that is not sealed (written by an older version) as it is; null when it cannot be opened. */
  open(stored: string): string | null;
  isSealed(stored: string): boolean;
}

function loadKey(file: string): Buffer {
  try {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key; restore it from a backup`);
    chmodSync(file, 0o600);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // Written beside, then linked into place: a second process starting at once keeps the first one's key.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileAtomic(tmp, `${randomBytes(32).toString('base64')}\n`, 0o600);
    try {
      linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      rmSync(tmp, { force: true });
    }
    return loadKey(file);
  }
}

/** Opens (or creates) the key in `stateDir`. */
export function openSecretBox(stateDir: string): SecretBox {
  const key = loadKey(join(stateDir, KEY_FILE));
  return {
    seal(plain) {
      const iv = randomBytes(IV);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV));
        decipher.setAuthTag(raw.subarray(IV, IV + TAG));
        return Buffer.concat([decipher.update(raw.subarray(IV + TAG)), decipher.final()]).toString('utf8');
      } catch {
        // Another key (a database copied from another Kade, or a lost key file): the secret is gone, not garbage.
        return null;
      }
    },
    isSealed: (stored) => stored.startsWith(PREFIX),
  };
}
