import { joinPath, normalisePath } from '../../../shared/paths.ts';
import type { SettingsT, SettingsUpdateT } from '../../../shared/settings.ts';
import { DERIVED_FOLDERS, type DerivedPathKey, NUMBER_KEYS, SECRET_KEYS, type SecretKey } from '../../../shared/settings-keys.ts';
import { messagesByField, nameProblem, type SchemaIssue } from '../../forms/field-messages.ts';
import { t } from '../../i18n.ts';
import { allowedDirsOf } from './allowed-dirs.ts';

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

/** The shared networks as listed, one name per word. */
const networksOf = (form: SettingsForm): string[] => form.text.APP_NETWORKS.split(/[\s,]+/).filter(Boolean);

/** The PUT body: every value, and a secret only when it is replaced or removed. */
export function toUpdate(form: SettingsForm): SettingsUpdateT {
  const body: Record<string, unknown> = { ...form.flags };
  for (const k of TEXT_KEYS) body[k] = NUMBERS.has(k) ? toNumber(form.text[k]) : form.text[k].trim();
  body.APP_NETWORKS = networksOf(form);
  // One folder per line; a folder name may hold spaces or commas.
  body.ALLOWED_HOST_DIRS = allowedDirsOf(form.text.ALLOWED_HOST_DIRS);
  for (const k of SECRET_KEYS) {
    const s = form.secrets[k];
    if (s.remove) body[k] = { set: false };
    else if (s.replace !== '') body[k] = s.replace;
  }
  return body as SettingsUpdateT;
}

/** Kade's own sentence for what the server's schema says about a setting, where the general one says too little. */
function ownSentence(form: SettingsForm, path: string, i: SchemaIssue): string | null {
  const [key, index] = path.split('.');
  if (key === 'TIMEZONE') return t('check.timezone');
  if (key === 'REGISTRY_URL') return t('check.registry_url');
  if (key === 'SHARED_NETWORK') return nameProblem('network', form.text.SHARED_NETWORK.trim());
  if (key === 'APP_NETWORKS') {
    const list = networksOf(form);
    if (index !== undefined) return nameProblem('network', list[Number(index)] ?? '');
    const twice = list.find((n, at) => list.indexOf(n) !== at);
    if (i.code === 'custom' && twice) return t('check.listed_twice', { value: twice });
  }
  return null;
}

/** What is wrong per setting (the first issue of each), in Kade's words; empty when the schema has nothing to say. */
export function settingsMessages(form: SettingsForm, issues: readonly SchemaIssue[]): Record<string, string> {
  const byPath = messagesByField(issues, (path, i) => ownSentence(form, path, i));
  const out: Record<string, string> = {};
  for (const [path, text] of Object.entries(byPath)) out[path.split('.')[0] ?? path] ??= text;
  return out;
}
