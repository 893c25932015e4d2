import { joinPath } from '../../shared/paths.ts';
import { type AuthSettingsT, type AuthSourceT, readAuthBlock, Settings, type SettingsT } from '../../shared/settings.ts';
import { canonicalTimezone, DERIVED_FOLDERS, type DerivedPathKey, NUMBER_KEYS, type PathKey, SECRET_KEYS, type SecretKey } from '../../shared/settings-keys.ts';
import type { SettingsRepo } from './settings.repo.ts';

/** What the boot configuration contributes: the defaults of the paths, the time zone and auto-sync. */
export interface SettingsDefaults {
  baseDir: string;
  timezone: string;
  autoSyncOnBoot: boolean;
}

export const DERIVED_KEYS = Object.keys(DERIVED_FOLDERS) as DerivedPathKey[];

/** Settings that are neither paths, secrets nor AUTH: stored and answered as they are. */
export const PLAIN_KEYS = [
  'TIMEZONE',
  'SHARED_NETWORK',
  'APP_NETWORKS',
  'BACKUP_APPDATA',
  'BACKUP_COMPRESSION',
  'BACKUP_SCHEDULE_MODE',
  ...NUMBER_KEYS,
  'BACKUP_OFFSITE_DIR',
  'AUTO_SYNC_ON_BOOT',
  'WIZARD_DONE',
  'UPDATE_CHANNEL',
  'ALLOWED_HOST_DIRS',
  'UPDATE_CHECK_ENABLED',
  'ALLOW_PRIVILEGED_APPS',
  'REGISTRY_URL',
  'REGISTRY_USER',
] as const satisfies readonly (keyof SettingsT)[];
export type PlainKey = (typeof PLAIN_KEYS)[number];
export type PlainValues = Pick<SettingsT, PlainKey>;

export const LEGACY_PRERELEASE = 'UPDATE_INCLUDE_PRERELEASE';

/** The settings as they are now, with the secrets themselves; never sent as a whole. */
export interface SettingsState {
  paths: Record<PathKey, string>;
  /** Derived paths set on their own; the others follow BASE_DIR. */
  pinned: Record<DerivedPathKey, boolean>;
  plain: PlainValues;
  secrets: Record<SecretKey, string | null>;
  auth: AuthSettingsT;
  /** Where the active AUTH comes from: the SVC_AUTH_PROXY_* environment, a stored row of an older version, or nowhere. */
  authSource?: AuthSourceT;
}

function plainDefaults(d: SettingsDefaults): PlainValues {
  return {
    TIMEZONE: d.timezone,
    SHARED_NETWORK: 'svc_shared',
    APP_NETWORKS: [],
    BACKUP_APPDATA: true,
    BACKUP_COMPRESSION: 'gzip',
    BACKUP_SCHEDULE_MODE: 'weekly',
    BACKUP_SCHEDULE_DAY: 0,
    BACKUP_SCHEDULE_HOUR: 3,
    BACKUP_RETENTION_COUNT: 7,
    BACKUP_RETENTION_DAYS: 0,
    DISK_MIN_FREE_GB: 5,
    DISK_WARN_PCT: 90,
    BACKUP_OFFSITE_DIR: '',
    AUTO_SYNC_ON_BOOT: d.autoSyncOnBoot,
    WIZARD_DONE: false,
    UPDATE_CHANNEL: 'stable',
    ALLOWED_HOST_DIRS: [],
    UPDATE_CHECK_ENABLED: true,
    ALLOW_PRIVILEGED_APPS: 'admins',
    REGISTRY_URL: '',
    REGISTRY_USER: '',
  };
}

const isTrue = (v: unknown): boolean => v === true || v === 1 || v === 'true' || v === '1';

/**
 * The legacy include-prerelease flag becomes the update channel (true → beta) the
 * first time stored data is read; an explicit channel wins. The old key is removed.
 */
export function migrateLegacy(repo: SettingsRepo, stored: Map<string, unknown>): void {
  if (!stored.has(LEGACY_PRERELEASE)) return;
  const legacy = stored.get(LEGACY_PRERELEASE);
  const set: Record<string, unknown> = {};
  if (!stored.has('UPDATE_CHANNEL')) set.UPDATE_CHANNEL = isTrue(legacy) ? 'beta' : 'stable';
  repo.write({ set, remove: [LEGACY_PRERELEASE] });
  stored.delete(LEGACY_PRERELEASE);
  if (set.UPDATE_CHANNEL) stored.set('UPDATE_CHANNEL', set.UPDATE_CHANNEL);
}

const storedPath = (v: unknown): string | null => (typeof v === 'string' && v.startsWith('/') ? v : null);

const zones = new Map<string, string>();
/** The canonical name of the server's own zone, or the name as detected when the runtime does not know it. */
function defaultZone(tz: string): string {
  let zone = zones.get(tz);
  if (zone === undefined) {
    zone = canonicalTimezone(tz) ?? tz;
    zones.set(tz, zone);
  }
  return zone;
}

/** Reads every setting, with defaults for what is absent or no longer valid (a hand edit, an older format). */
export function loadState(repo: SettingsRepo, d: SettingsDefaults): SettingsState {
  const stored = repo.all();
  migrateLegacy(repo, stored);
  const plain = plainDefaults(d);
  const shape = Settings.shape;
  for (const key of PLAIN_KEYS) {
    if (!stored.has(key)) continue;
    const parsed = shape[key].safeParse(stored.get(key));
    if (parsed.success) (plain as Record<PlainKey, unknown>)[key] = parsed.data;
  }
  if (stored.has('TIMEZONE')) plain.TIMEZONE = canonicalTimezone(plain.TIMEZONE) ?? d.timezone;
  // The default (TZ, or /etc) is looked up in the runtime's zone data when first read, not at start:
  // that lookup maps the data in, some 6 MiB resident that an idle Kade does not need (issue #18).
  else Object.defineProperty(plain, 'TIMEZONE', { get: () => defaultZone(d.timezone), enumerable: true, configurable: true });

  const base = storedPath(stored.get('BASE_DIR')) ?? d.baseDir;
  const paths = { BASE_DIR: base } as Record<PathKey, string>;
  const pinned = {} as Record<DerivedPathKey, boolean>;
  for (const key of DERIVED_KEYS) {
    const own = storedPath(stored.get(key));
    pinned[key] = own !== null;
    paths[key] = own ?? joinPath(base, DERIVED_FOLDERS[key]);
  }

  const secrets = {} as Record<SecretKey, string | null>;
  for (const key of SECRET_KEYS) {
    const v = stored.get(key);
    secrets[key] = typeof v === 'string' && v !== '' ? v : null;
  }
  return { paths, pinned, plain, secrets, auth: readAuthBlock(stored.get('AUTH')) };
}

/** The GET answer: secrets only as `{set}`. */
export function presentState(s: SettingsState, pathsInUse: Record<PathKey, string>): SettingsT {
  return {
    ...s.paths,
    ...s.plain,
    NOTIFY_TOKEN: { set: s.secrets.NOTIFY_TOKEN !== null },
    NOTIFY_EMAIL_PASSWORD: { set: s.secrets.NOTIFY_EMAIL_PASSWORD !== null },
    REGISTRY_TOKEN: { set: s.secrets.REGISTRY_TOKEN !== null },
    AUTH: s.auth,
    AUTH_SOURCE: s.authSource ?? (s.auth.proxy_header ? 'settings' : 'none'),
    paths_in_use: { ...pathsInUse },
  };
}
