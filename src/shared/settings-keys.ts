/**
 * Names and pure rules of the settings, without zod: the interface loads these
 * at once and the schemas (settings.ts) only when it validates a save.
 */
export const PATH_KEYS = ['BASE_DIR', 'LIBRARY_DIR', 'DATA_DIR', 'BACKUP_DIR'] as const;
export type PathKey = (typeof PATH_KEYS)[number];
export type DerivedPathKey = Exclude<PathKey, 'BASE_DIR'>;
/** The folder under BASE_DIR each derived path follows while it is not set on its own. */
export const DERIVED_FOLDERS: Record<DerivedPathKey, string> = { LIBRARY_DIR: 'stacks', DATA_DIR: 'appdata', BACKUP_DIR: 'backups' };

/** Write-only: GET answers `{ "set": bool }` for these, never the value. */
export const SECRET_KEYS = ['NOTIFY_TOKEN', 'NOTIFY_EMAIL_PASSWORD', 'REGISTRY_TOKEN'] as const;
export type SecretKey = (typeof SECRET_KEYS)[number];

/** Settings whose value is a number: the backup schedule and retention, the disk space limits. */
export const NUMBER_KEYS = [
  'BACKUP_SCHEDULE_DAY',
  'BACKUP_SCHEDULE_HOUR',
  'BACKUP_RETENTION_COUNT',
  'BACKUP_RETENTION_DAYS',
  'DISK_MIN_FREE_GB',
  'DISK_WARN_PCT',
] as const;

export const UPDATE_CHANNELS = ['stable', 'beta'] as const;
export const SCHEDULE_MODES = ['off', 'daily', 'weekly'] as const;
/** BACKUP_COMPRESSION: how new backup archives are compressed (`.tar.gz` or `.tar.zst`). */
export const BACKUP_COMPRESSIONS = ['gzip', 'zstd'] as const;
/** ALLOW_PRIVILEGED_APPS: who may install or change an app with powers over the host (privileged, host namespaces, capabilities). */
export const ALLOW_PRIVILEGED_VALUES = ['admins', 'everyone'] as const;

/**
 * Settings stored for features that do not exist yet: a PUT that changes one is refused (`setting_not_available`)
 * and the screen marks them. A key leaves this list in the change that makes it take effect (docs/settings.md):
 * NOTIFY_TOKEN and NOTIFY_EMAIL_PASSWORD left it with the notification channels, UPDATE_CHANNEL with Kade's
 * self-update. Empty now; the rule stays for the next such key.
 */
export const NOT_AVAILABLE_KEYS: readonly string[] = [];
export const isNotAvailable = (key: string): boolean => NOT_AVAILABLE_KEYS.includes(key);

/** Weekday names as JavaScript numbers them (0 = Sunday); English and Dutch, full or short. */
const WEEKDAY_NAMES = [
  ['sunday', 'sun', 'zondag', 'zo'],
  ['monday', 'mon', 'maandag', 'ma'],
  ['tuesday', 'tue', 'dinsdag', 'di'],
  ['wednesday', 'wed', 'woensdag', 'wo'],
  ['thursday', 'thu', 'donderdag', 'do'],
  ['friday', 'fri', 'vrijdag', 'vr'],
  ['saturday', 'sat', 'zaterdag', 'za'],
] as const;

/** 0–6 for a weekday number or name, null for anything else. */
export function weekdayIndex(v: number | string): number | null {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= 6 ? v : null;
  const s = v.trim().toLowerCase();
  if (/^[0-6]$/.test(s)) return Number(s);
  const i = WEEKDAY_NAMES.findIndex((names) => (names as readonly string[]).includes(s));
  return i === -1 ? null : i;
}

/** The canonical IANA name of a time zone the runtime knows, or null. */
export function canonicalTimezone(tz: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(tz)) return null;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    // RangeError: not a zone this runtime knows.
    return null;
  }
}
