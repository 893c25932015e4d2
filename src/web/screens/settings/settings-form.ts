import { joinPath, normalisePath } from '../../../shared/paths.ts';
import type { SettingsT, SettingsUpdateT } from '../../../shared/settings.ts';
import { DERIVED_FOLDERS, type DerivedPathKey, NUMBER_KEYS, SECRET_KEYS, type SecretKey } from '../../../shared/settings-keys.ts';

/** What the form edits: inputs as typed; secrets as a replacement and a remove mark, never the value. */
export interface SettingsForm {
  text: Record<TextKey, string>;
  flags: Record<FlagKey, boolean>;
  secrets: Record<SecretKey, { replace: string; remove: boolean }>;
}

export const TEXT_KEYS = [
  'BASE_DIR',
  'LIBRARY_DIR',
  'DATA_DIR',
  'BACKUP_DIR',
  'TIMEZONE',
  'SHARED_NETWORK',
  'APP_NETWORKS',
  'DISK_MIN_FREE_GB',
  'DISK_WARN_PCT',
  'BACKUP_OFFSITE_DIR',
  'BACKUP_COMPRESSION',
  'UPDATE_CHANNEL',
  'REGISTRY_URL',
  'REGISTRY_USER',
  'ALLOW_PRIVILEGED_APPS',
  'ALLOWED_HOST_DIRS',
] as const;
export type TextKey = (typeof TEXT_KEYS)[number];
// The backup schedule and retention (BACKUP_SCHEDULE_*, BACKUP_RETENTION_*) are not here: the Backups screen edits
// them through /api/backups/schedule, and a settings save must not send back values read before such a change.
export const FLAG_KEYS = ['BACKUP_APPDATA', 'AUTO_SYNC_ON_BOOT', 'UPDATE_CHECK_ENABLED'] as const;
export type FlagKey = (typeof FLAG_KEYS)[number];

const NUMBERS = new Set<string>(NUMBER_KEYS);

export function toForm(s: SettingsT): SettingsForm {
  const text = {} as Record<TextKey, string>;
  for (const k of TEXT_KEYS)
    text[k] = k === 'APP_NETWORKS' ? s.APP_NETWORKS.join(', ') : k === 'ALLOWED_HOST_DIRS' ? s.ALLOWED_HOST_DIRS.join('\n') : String(s[k]);
  const secrets = {} as SettingsForm['secrets'];
  for (const k of SECRET_KEYS) secrets[k] = { replace: '', remove: false };
  return { text, flags: { BACKUP_APPDATA: s.BACKUP_APPDATA, AUTO_SYNC_ON_BOOT: s.AUTO_SYNC_ON_BOOT, UPDATE_CHECK_ENABLED: s.UPDATE_CHECK_ENABLED }, secrets };
}

/** A derived folder that followed the old base follows the new one, as the server will do. */
export function withBase(form: SettingsForm, base: string): SettingsForm {
  const text = { ...form.text, BASE_DIR: base };
  const oldBase = normalisePath(form.text.BASE_DIR);
  for (const k of Object.keys(DERIVED_FOLDERS) as DerivedPathKey[]) {
    if (normalisePath(form.text[k]) === joinPath(oldBase, DERIVED_FOLDERS[k]) && base.trim().startsWith('/')) {
      text[k] = joinPath(normalisePath(base), DERIVED_FOLDERS[k]);
    }
  }
  return { ...form, text };
}

const toNumber = (v: string): number | string => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v);

/** The PUT body: every value, and a secret only when it is replaced or removed. */
export function toUpdate(form: SettingsForm): SettingsUpdateT {
  const body: Record<string, unknown> = { ...form.flags };
  for (const k of TEXT_KEYS) body[k] = NUMBERS.has(k) ? toNumber(form.text[k]) : form.text[k].trim();
  body.APP_NETWORKS = form.text.APP_NETWORKS.split(/[\s,]+/).filter(Boolean);
  // One folder per line; a folder name may hold spaces or commas.
  body.ALLOWED_HOST_DIRS = form.text.ALLOWED_HOST_DIRS.split('\n')
    .map((d) => d.trim())
    .filter(Boolean);
  for (const k of SECRET_KEYS) {
    const s = form.secrets[k];
    if (s.remove) body[k] = { set: false };
    else if (s.replace !== '') body[k] = s.replace;
  }
  return body as SettingsUpdateT;
}

/** Checks the body with the server's own schema; the schema (and zod) load on the first save, not with every page. */
export async function invalidKeys(body: SettingsUpdateT): Promise<string[]> {
  const { invalidKeysOf } = await import('./settings-validate.ts');
  return invalidKeysOf(body);
}
