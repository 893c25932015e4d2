import { joinPath, normalisePath } from '../../shared/paths.ts';
import type { PathCheckKey, SettingsUpdateT } from '../../shared/settings.ts';
import { canonicalTimezone, DERIVED_FOLDERS, isNotAvailable, SECRET_KEYS, type SecretKey, weekdayIndex } from '../../shared/settings-keys.ts';
import { AppError } from '../core/errors.ts';
import { DERIVED_KEYS, PLAIN_KEYS, type PlainKey, type SettingsState } from './state.ts';

/** What a PUT changes: rows to write and remove, the keys that changed, and the folders to check first. */
export interface Plan {
  set: Record<string, unknown>;
  remove: string[];
  changed: string[];
  check: Array<{ key: PathCheckKey; path: string }>;
}

/** Stable JSON for comparing values regardless of key order. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stable(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}
export const sameValue = (a: unknown, b: unknown): boolean => stable(a) === stable(b);

/** Brings a value into its stored form: canonical zone name, weekday number, normalised folder. */
function normalised(key: PlainKey, v: unknown): unknown {
  if (key === 'TIMEZONE' && typeof v === 'string') return canonicalTimezone(v) ?? v;
  if (key === 'BACKUP_SCHEDULE_DAY' && (typeof v === 'number' || typeof v === 'string')) return weekdayIndex(v) ?? v;
  if (key === 'BACKUP_OFFSITE_DIR' && typeof v === 'string') return v.trim() === '' ? '' : normalisePath(v);
  if (key === 'ALLOWED_HOST_DIRS' && Array.isArray(v))
    return [
      ...new Set(
        v
          .map(String)
          .filter((d) => d.trim() !== '')
          .map((d) => (d.trim().startsWith('/') ? normalisePath(d) : d.trim())),
      ),
    ];
  return v;
}

/** The legacy flag stands for a channel unless the same request names the channel itself. */
function withChannel(input: SettingsUpdateT): SettingsUpdateT {
  if (input.UPDATE_CHANNEL !== undefined || input.UPDATE_INCLUDE_PRERELEASE === undefined) return input;
  return { ...input, UPDATE_CHANNEL: input.UPDATE_INCLUDE_PRERELEASE ? 'beta' : 'stable' };
}

function planPlain(cur: SettingsState, input: SettingsUpdateT, plan: Plan): void {
  for (const key of PLAIN_KEYS) {
    if (input[key] === undefined) continue;
    const v = normalised(key, input[key]);
    if (sameValue(v, cur.plain[key])) continue;
    plan.set[key] = v;
    plan.changed.push(key);
    if (key === 'BACKUP_OFFSITE_DIR' && v !== '') plan.check.push({ key, path: String(v) });
  }
}

/**
 * BASE_DIR and the folders derived from it. A derived folder sent unchanged keeps
 * its mode: one that follows BASE_DIR moves with it, one set on its own stays.
 * An empty value means the default: the mounted BASE_DIR, or following BASE_DIR.
 */
function planPaths(cur: SettingsState, input: SettingsUpdateT, mountedBase: string, plan: Plan): void {
  const given = (v: string | undefined) => (v === undefined ? undefined : v.trim() === '' ? '' : normalisePath(v));
  const baseIn = given(input.BASE_DIR);
  const base = baseIn === undefined ? cur.paths.BASE_DIR : baseIn === '' ? mountedBase : baseIn;
  if (base !== cur.paths.BASE_DIR) {
    plan.changed.push('BASE_DIR');
    plan.check.push({ key: 'BASE_DIR', path: base });
    if (base === mountedBase) plan.remove.push('BASE_DIR');
    else plan.set.BASE_DIR = base;
  }
  for (const key of DERIVED_KEYS) {
    const follow = joinPath(base, DERIVED_FOLDERS[key]);
    const v = given(input[key]);
    let next: string;
    if (v === undefined || v === cur.paths[key]) {
      next = cur.pinned[key] ? cur.paths[key] : follow;
    } else if (v === '' || v === follow) {
      next = follow;
      if (cur.pinned[key]) plan.remove.push(key);
    } else {
      next = v;
      plan.set[key] = v;
    }
    if (next !== cur.paths[key]) {
      plan.changed.push(key);
      plan.check.push({ key, path: next });
    }
  }
}

function planSecrets(cur: SettingsState, input: SettingsUpdateT, plan: Plan): void {
  for (const key of SECRET_KEYS) {
    const v = input[key as SecretKey];
    if (typeof v === 'string' && v.trim() !== '' && v !== cur.secrets[key]) {
      plan.set[key] = v;
      plan.changed.push(key);
    } else if (v !== null && typeof v === 'object' && !v.set && cur.secrets[key] !== null) {
      plan.remove.push(key);
      plan.changed.push(key);
    }
    // Empty, null, absent or {set:true}: the stored secret stays, since the interface never has it to send back.
  }
}

/** Works out a PUT without touching anything; refuses a change of AUTH. */
export function planUpdate(cur: SettingsState, raw: SettingsUpdateT, mountedBase: string): Plan {
  if (raw.AUTH !== undefined && !sameValue(raw.AUTH, cur.auth)) {
    throw new AppError('read_only_setting', 'AUTH is read-only here: PUT /api/settings cannot change the sign-on settings', {
      params: { field: 'AUTH' },
      fields: ['AUTH'],
    });
  }
  const input = withChannel(raw);
  const plan: Plan = { set: {}, remove: [], changed: [], check: [] };
  planPaths(cur, input, mountedBase, plan);
  planPlain(cur, input, plan);
  planSecrets(cur, input, plan);
  refuseNotAvailable(cur, input, plan);
  return plan;
}

/**
 * A setting of a feature that does not exist yet would be saved and do nothing: refused when the request changes
 * it. Sending the stored value back (a GET answer) or removing a stored secret is fine.
 */
function refuseNotAvailable(_cur: SettingsState, input: SettingsUpdateT, plan: Plan): void {
  const keys = plan.changed.filter((k) => isNotAvailable(k) && input[k as keyof SettingsUpdateT] !== undefined && !plan.remove.includes(k));
  const first = keys[0];
  if (first) {
    throw new AppError('setting_not_available', `${first} cannot be saved yet: the feature it belongs to is not available yet (docs/settings.md)`, {
      params: { field: first },
      fields: keys,
    });
  }
}
