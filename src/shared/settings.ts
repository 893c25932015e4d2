/**
 * The settings editable in the interface (GET/PUT /api/settings), the path check
 * and the wizard payloads. Validated by the server, reused by the interface.
 */
import { z } from 'zod';
import { NETWORK_NAME_PATTERN } from './names.ts';
import { ROLES } from './roles.ts';
import { ALLOW_PRIVILEGED_VALUES, BACKUP_COMPRESSIONS, canonicalTimezone, PATH_KEYS, SCHEDULE_MODES, UPDATE_CHANNELS, weekdayIndex } from './settings-keys.ts';

const NetworkName = z.string().regex(NETWORK_NAME_PATTERN, 'letters, digits, _ . and -, starting with a letter or digit, at most 63');

const PathText = z
  .string()
  .max(4096)
  .refine((s) => !s.includes('\0'), 'contains a NUL byte');

const Timezone = z.string().refine((s) => canonicalTimezone(s) !== null, 'not a known IANA time zone, e.g. Europe/Amsterdam or UTC');
const Weekday = z.union([z.number(), z.string()]).refine((v) => weekdayIndex(v) !== null, 'a weekday 0–6 (0 = Sunday) or its name');

/** A write-only value in a PUT: a new value; `{set:false}` removes it; empty, null, absent or `{set:true}` keep it. */
export const SecretInput = z.union([z.string().max(4096), z.object({ set: z.boolean() }), z.null()]);
export const SecretState = z.object({ set: z.boolean() });

export const AuthSettings = z.object({
  proxy_role: z.enum(ROLES),
  proxy_header: z.string(),
  trusted_proxies: z.array(z.string()),
});
export type AuthSettingsT = z.infer<typeof AuthSettings>;
/** Where the active AUTH comes from: the SVC_AUTH_PROXY_* environment variables, a row stored by an older version, or nowhere (off). */
export const AuthSource = z.enum(['environment', 'settings', 'none']);
export type AuthSourceT = z.infer<typeof AuthSource>;
/** What AUTH reads as while nothing is stored under the key. */
export const AUTH_DEFAULT: AuthSettingsT = { proxy_role: 'viewer', proxy_header: '', trusted_proxies: [] };

/** Reads a stored AUTH block leniently (a list of proxies may be stored as one string); a missing role reads as viewer, never admin. */
export function readAuthBlock(v: unknown): AuthSettingsT {
  if (v === null || typeof v !== 'object') return AUTH_DEFAULT;
  const b = v as Record<string, unknown>;
  const role = ROLES.find((r) => r === b.proxy_role) ?? 'viewer';
  const raw = b.trusted_proxies;
  const list = typeof raw === 'string' ? raw.split(/[\s,]+/) : Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [];
  return {
    proxy_role: role,
    proxy_header: typeof b.proxy_header === 'string' ? b.proxy_header : '',
    trusted_proxies: list.map((p) => p.trim()).filter(Boolean),
  };
}

const PathsInUse = z.object({ BASE_DIR: z.string(), LIBRARY_DIR: z.string(), DATA_DIR: z.string(), BACKUP_DIR: z.string() });

const common = {
  SHARED_NETWORK: NetworkName,
  APP_NETWORKS: z
    .array(NetworkName)
    .max(32)
    .refine((a) => new Set(a).size === a.length, 'a network is listed twice'),
  BACKUP_APPDATA: z.boolean(),
  BACKUP_COMPRESSION: z.enum(BACKUP_COMPRESSIONS),
  BACKUP_SCHEDULE_MODE: z.enum(SCHEDULE_MODES),
  BACKUP_SCHEDULE_HOUR: z.number().int().min(0).max(23),
  BACKUP_RETENTION_COUNT: z.number().int().min(0).max(1000),
  BACKUP_RETENTION_DAYS: z.number().int().min(0).max(36500),
  DISK_MIN_FREE_GB: z.number().min(0).max(1_000_000),
  DISK_WARN_PCT: z.number().min(1).max(100),
  AUTO_SYNC_ON_BOOT: z.boolean(),
  WIZARD_DONE: z.boolean(),
  UPDATE_CHANNEL: z.enum(UPDATE_CHANNELS),
  /** Host folders (absolute) an admin allows apps to bind and take devices from, besides each app's own data folder. */
  ALLOWED_HOST_DIRS: z.array(PathText).max(64),
  UPDATE_CHECK_ENABLED: z.boolean(),
  ALLOW_PRIVILEGED_APPS: z.enum(ALLOW_PRIVILEGED_VALUES),
  REGISTRY_URL: z
    .string()
    .max(2048)
    .regex(
      /^(|(https?:\/\/)?[A-Za-z0-9.-]+(:\d{1,5})?(\/[A-Za-z0-9._~/-]*)?)$/,
      'a registry host such as ghcr.io, optionally with https://, a port and a path',
    ),
  REGISTRY_USER: z.string().max(255),
};

/** GET /api/settings. `paths_in_use` are the folders this process works in; a changed path applies after a restart. */
export const Settings = z.object({
  BASE_DIR: z.string(),
  LIBRARY_DIR: z.string(),
  DATA_DIR: z.string(),
  BACKUP_DIR: z.string(),
  TIMEZONE: z.string(),
  ...common,
  BACKUP_SCHEDULE_DAY: z.number().int().min(0).max(6),
  BACKUP_OFFSITE_DIR: z.string(),
  NOTIFY_TOKEN: SecretState,
  NOTIFY_EMAIL_PASSWORD: SecretState,
  REGISTRY_TOKEN: SecretState,
  AUTH: AuthSettings,
  AUTH_SOURCE: AuthSource,
  paths_in_use: PathsInUse,
});
export type SettingsT = z.infer<typeof Settings>;

/**
 * PUT /api/settings: any subset. AUTH is accepted only unchanged; the legacy
 * UPDATE_INCLUDE_PRERELEASE becomes UPDATE_CHANNEL; `paths_in_use` is ignored,
 * so a GET answer can be sent back as it is.
 */
export const SettingsUpdate = z
  .object({
    BASE_DIR: PathText,
    LIBRARY_DIR: PathText,
    DATA_DIR: PathText,
    BACKUP_DIR: PathText,
    TIMEZONE: Timezone,
    ...common,
    BACKUP_SCHEDULE_DAY: Weekday,
    BACKUP_OFFSITE_DIR: PathText,
    NOTIFY_TOKEN: SecretInput,
    NOTIFY_EMAIL_PASSWORD: SecretInput,
    REGISTRY_TOKEN: SecretInput,
    UPDATE_INCLUDE_PRERELEASE: z.boolean(),
    AUTH: z.unknown(),
    AUTH_SOURCE: z.unknown(),
    paths_in_use: z.unknown(),
  })
  .partial()
  .strict();
export type SettingsUpdateT = z.infer<typeof SettingsUpdate>;

/** `not_allowed`: the one answer a non-admin gets for a folder outside the places an app may use, whatever the reason. */
export const PATH_REASONS = ['relative', 'system', 'outside_base', 'not_a_directory', 'not_writable', 'not_creatable', 'missing', 'not_allowed'] as const;
export type PathReason = (typeof PATH_REASONS)[number];
/**
 * Which rules apply: the base and derived folders must lie in the mounted BASE_DIR; the offsite folder must exist (a
 * mount); an allowed host folder (ALLOWED_HOST_DIRS, one at a time) is judged by the rule its save applies.
 */
export const PATH_CHECK_KEYS = [...PATH_KEYS, 'BACKUP_OFFSITE_DIR', 'ALLOWED_HOST_DIRS'] as const;
export type PathCheckKey = (typeof PATH_CHECK_KEYS)[number];

/** GET /api/paths/check?path=P (optionally &key=K). `reason` says why `ok` is false. */
export const PathCheck = z.object({
  path: z.string(),
  exists: z.boolean(),
  writable: z.boolean(),
  inside_base: z.boolean(),
  ok: z.boolean(),
  fix: z.string().nullable(),
  reason: z.enum(PATH_REASONS).nullable(),
  base: z.string(),
});
export type PathCheckT = z.infer<typeof PathCheck>;

/** POST /api/paths/move: the new folders; a folder absent, empty or equal to the one in use stays where it is. */
export const PathMove = z
  .object({
    LIBRARY_DIR: z.string().max(4096),
    DATA_DIR: z.string().max(4096),
    BACKUP_DIR: z.string().max(4096),
  })
  .partial()
  .strict();
export type PathMoveT = z.infer<typeof PathMove>;

/** POST /api/wizard/paths: BASE_DIR and, optionally, derived folders that do not follow it. */
export const WizardPaths = z
  .object({ BASE_DIR: PathText, LIBRARY_DIR: PathText.optional(), DATA_DIR: PathText.optional(), BACKUP_DIR: PathText.optional() })
  .strict();
export const WizardGit = z.object({
  name: z.string().min(1).max(100).optional(),
  url: z.string().min(1).max(2048),
  branch: z.string().min(1).max(255).optional(),
  subdirectory: z.string().max(255).optional(),
  token: z.string().max(4096).optional(),
});
export const WizardState = z.object({ done: z.boolean(), repos: z.number().int() });
export type WizardStateT = z.infer<typeof WizardState>;
