import { mkdirSync } from 'node:fs';
import { isInside, normalisePath } from '../../shared/paths.ts';
import { roleAllows } from '../../shared/roles.ts';
import type { AuthSettingsT, AuthSourceT, PathCheckKey, PathCheckT, SettingsT, SettingsUpdateT } from '../../shared/settings.ts';
import type { ALLOW_PRIVILEGED_VALUES, PathKey, SecretKey } from '../../shared/settings-keys.ts';
import type { UpdateChannel } from '../../shared/version.ts';
import { requireRole } from '../core/authorize.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import { allowedDirProblem } from './bind-rules.ts';
import { checkPath, type PathRules, pathRefusal, realPathOf } from './path-check.ts';
import { type Plan, planUpdate } from './plan.ts';
import type { SettingsRepo } from './settings.repo.ts';
import { loadState, presentState, type SettingsDefaults, type SettingsState } from './state.ts';

type PrivilegedPolicy = (typeof ALLOW_PRIVILEGED_VALUES)[number];

export interface SettingsDeps {
  repo: SettingsRepo;
  events: EventBus;
  logger: Logger;
  defaults: SettingsDefaults;
  rules: PathRules;
  /** The folders of the boot configuration; used where a stored folder cannot be used at start. */
  bootPaths: Record<PathKey, string>;
  /** SVC_DATA: never an allowed host folder (ALLOWED_HOST_DIRS). */
  stateDir: string;
  /** The sign-on config in effect (from the environment); shown read-only in place of the stored AUTH. */
  activeAuth?: () => { auth: AuthSettingsT; source: AuthSourceT };
  /** The folders in use, resolved before the service (`foldersInUse`); resolved by the service when absent. */
  pathsInUse?: Readonly<Record<PathKey, string>>;
  /** The apps on a shared network (stacks/app-index.ts): one that apps are on stays in the settings; none when absent. */
  networkUsers?: (name: string) => string[];
}

/**
 * The folders this process works in, fixed at start: the stored ones where they
 * can be used, else the boot configuration's (logged), so a folder that went
 * missing never keeps Kade from starting. A changed folder applies at the next start.
 */
export function resolvePathsInUse(state: SettingsState, d: Pick<SettingsDeps, 'bootPaths' | 'rules' | 'logger'>): Readonly<Record<PathKey, string>> {
  const out = { ...d.bootPaths };
  for (const key of Object.keys(out) as PathKey[]) {
    const want = state.paths[key];
    if (want === d.bootPaths[key]) continue;
    const c = checkPath(want, key, d.rules);
    try {
      if (!c.ok) throw new Error(`${c.reason}${c.fix ? `; fix: ${c.fix}` : ''}`);
      mkdirSync(want, { recursive: true });
      out[key] = want;
    } catch (err) {
      d.logger.error({ key, path: want, fallback: out[key], err: errorMessage(err) }, 'stored folder cannot be used; using the boot configuration');
    }
  }
  return Object.freeze(out);
}

/** What the steps below share: the dependencies, the state as stored now, the folders in use, the network users. */
interface Ctx {
  d: SettingsDeps;
  state: () => SettingsState;
  pathsInUse: Readonly<Record<PathKey, string>>;
  // Which apps are on a shared network (the composition root's index of the apps' folders).
  networkUsers: (name: string) => string[];
}

type WizardPaths = { BASE_DIR: string; LIBRARY_DIR?: string | undefined; DATA_DIR?: string | undefined; BACKUP_DIR?: string | undefined };

/** Settings editable in the interface, stored as JSON in the settings table; secrets are write-only. */
export function createSettingsService(d: SettingsDeps) {
  const { repo, defaults } = d;
  const state = (): SettingsState => {
    const s = loadState(repo, defaults);
    const active = d.activeAuth?.();
    return active ? { ...s, auth: active.auth, authSource: active.source } : s;
  };
  const c: Ctx = { d, state, pathsInUse: d.pathsInUse ?? resolvePathsInUse(state(), d), networkUsers: d.networkUsers ?? (() => []) };
  const plain = () => state().plain;
  return {
    read(actor: Actor): SettingsT {
      requireRole(actor, 'admin', 'changing settings');
      return presentState(state(), c.pathsInUse);
    },
    /** Saves any subset; refuses a changed folder Kade cannot reach, never an unchanged one. */
    update(actor: Actor, input: SettingsUpdateT): SettingsT {
      requireRole(actor, 'admin', 'changing settings');
      return apply(c, actor, input);
    },
    /** The wizard's folders: BASE_DIR, and derived folders that follow it unless given. */
    setPaths: (actor: Actor, input: WizardPaths) => setPaths(c, actor, input),
    /**
     * GET /api/paths/check. Admins get the whole answer. Others get it only inside the mounted BASE_DIR (where apps
     * bind and folders are adopted) or an allowed host folder (links followed), never inside LIBRARY_DIR (every app's
     * `.env`), BACKUP_DIR or SVC_DATA. For anything else one "not allowed" answer, so it never tells what exists there.
     */
    checkPath: (actor: Actor, path: string, key?: PathCheckKey): PathCheckT => checkPathAs(c, actor, path, key),
    /** ALLOWED_HOST_DIRS as stored now: host folders apps may bind besides their own data folder. */
    allowedHostDirs: (): readonly string[] => plain().ALLOWED_HOST_DIRS,
    wizardDone: (): boolean => plain().WIZARD_DONE,
    /** Set by the wizard service, which emits its own event. */
    setWizardDone(done: boolean): void {
      repo.write({ set: { WIZARD_DONE: done }, remove: [] });
    },
    timezone: (): string => plain().TIMEZONE,
    /**
     * TIMEZONE where the process's own clock does not keep it: null while it is the server's own zone (the default,
     * from TZ), so the backup schedule reads the plain clock and no zone data is loaded; else the stored zone.
     */
    clockZone(): string | null {
      const stored = repo.all().get('TIMEZONE');
      return typeof stored !== 'string' || stored === defaults.timezone ? null : plain().TIMEZONE;
    },
    autoSyncOnBoot: (): boolean => plain().AUTO_SYNC_ON_BOOT,
    /** Kade's own update channel (stable: releases only; beta: pre-releases too), read at each check. */
    updateChannel: (): UpdateChannel => plain().UPDATE_CHANNEL,
    /** Read at each check, so a saved change applies at once. */
    updateCheckEnabled: (): boolean => plain().UPDATE_CHECK_ENABLED,
    allowPrivileged: (): PrivilegedPolicy => plain().ALLOW_PRIVILEGED_APPS,
    /** The backup settings as stored now (read at each use, so a saved change applies at once). */
    backupSettings: () => backupSettings(plain()),
    /** SHARED_NETWORK and APP_NETWORKS as stored now. */
    sharedNetworks: (): { shared: string; app: readonly string[] } => ({ shared: plain().SHARED_NETWORK, app: plain().APP_NETWORKS }),
    /** Written by the networks service, which emits its own event when a network is created or deleted. */
    setAppNetworks(names: string[]): void {
      repo.write({ set: { APP_NETWORKS: names }, remove: [] });
    },
    pathsInUse: (): Readonly<Record<PathKey, string>> => c.pathsInUse,
    /** The folders as stored (the doctor compares them with those in use). */
    storedPaths: (): Readonly<Record<PathKey, string>> => state().paths,
    auth: (): AuthSettingsT => state().auth,
    /** A write-only value for the module that uses it (notifications, self-update); null when not set. */
    secret: (key: SecretKey): string | null => state().secrets[key],
    /** The registry account (REGISTRY_URL / REGISTRY_USER / REGISTRY_TOKEN) for pulls and update checks. */
    registry(): { url: string; user: string; token: string | null } {
      const s = state();
      return { url: s.plain.REGISTRY_URL, user: s.plain.REGISTRY_USER, token: s.secrets.REGISTRY_TOKEN };
    },
  };
}

/** Refuses the first folder Kade cannot reach (all of them in `fields`), then creates the new ones. */
function checkFolders(c: Ctx, plan: Plan): void {
  const { rules } = c.d;
  const checks = plan.check.map((x) => ({ ...x, result: checkPath(x.path, x.key, rules) }));
  const bad = checks.filter((x) => !x.result.ok);
  const first = bad[0];
  if (first) throw pathRefusal(first.key, first.result, rules.uid, [...new Set(bad.map((b) => b.key))]);
  for (const x of checks) {
    if (x.result.exists) continue;
    try {
      mkdirSync(x.result.path, { recursive: true });
    } catch {
      // Lost a race, or a read-only mount the probe could not see: the folder cannot be made after all.
      throw pathRefusal(x.key, { ...x.result, ok: false, reason: 'not_creatable' }, rules.uid, [x.key]);
    }
  }
}

/** What an allowed host folder may neither be nor hold: the engine socket and Kade's own folders (bind-rules.ts). */
const kadeFolders = (c: Ctx) => ({
  engineSocket: c.d.rules.engineSocket ?? null,
  stateDir: c.d.stateDir,
  libraryDir: c.pathsInUse.LIBRARY_DIR,
  backupDir: c.pathsInUse.BACKUP_DIR,
});

/** ALLOWED_HOST_DIRS: absolute, never `/`, a system folder, the engine socket or Kade's own folders (bind-policy.ts). */
function checkAllowedDirs(c: Ctx, plan: Plan): void {
  const dirs = plan.set.ALLOWED_HOST_DIRS;
  if (!Array.isArray(dirs)) return;
  for (const dir of dirs.map(String)) {
    const problem = allowedDirProblem(dir, kadeFolders(c));
    if (problem) {
      throw new AppError('validation', `ALLOWED_HOST_DIRS: '${dir}' ${problem}`, {
        params: { field: 'ALLOWED_HOST_DIRS', path: dir },
        fields: ['ALLOWED_HOST_DIRS'],
      });
    }
  }
}

/** A shared network that apps are on stays in the settings: renaming or dropping it would strand them. */
function checkNetworks(c: Ctx, plan: Plan): void {
  if (plan.set.SHARED_NETWORK === undefined && plan.set.APP_NETWORKS === undefined) return;
  const now = c.state().plain;
  const before = [now.SHARED_NETWORK, ...now.APP_NETWORKS];
  const shared = plan.set.SHARED_NETWORK ?? now.SHARED_NETWORK;
  const apps = Array.isArray(plan.set.APP_NETWORKS) ? plan.set.APP_NETWORKS.map(String) : now.APP_NETWORKS;
  const after = new Set([String(shared), ...apps]);
  for (const name of before.filter((n) => !after.has(n))) {
    const stacks = c.networkUsers(name);
    if (stacks.length > 0) {
      throw new AppError('network_in_use', `network '${name}' cannot be renamed or removed: apps are on it (${stacks.join(', ')}); take them off it first`, {
        params: { name, stacks: stacks.join(', ') },
        fields: [plan.set.SHARED_NETWORK !== undefined ? 'SHARED_NETWORK' : 'APP_NETWORKS'],
      });
    }
  }
}

function apply(c: Ctx, actor: Actor, input: SettingsUpdateT): SettingsT {
  const plan = planUpdate(c.state(), input, c.d.rules.mountedBase);
  checkFolders(c, plan);
  checkAllowedDirs(c, plan);
  checkNetworks(c, plan);
  if (plan.changed.length > 0) {
    c.d.repo.write({ set: plan.set, remove: plan.remove });
    // Only the names of what changed: values of secrets must never reach the audit log.
    c.d.events.emit({ type: 'settings.updated', actor, source: 'settings', target: 'settings', status: 'ok', detail: { keys: plan.changed.join(',') } });
  }
  return presentState(c.state(), c.pathsInUse);
}

function setPaths(c: Ctx, actor: Actor, input: WizardPaths): SettingsT {
  requireRole(actor, 'admin', 'changing settings');
  return apply(c, actor, {
    BASE_DIR: input.BASE_DIR,
    LIBRARY_DIR: input.LIBRARY_DIR ?? '',
    DATA_DIR: input.DATA_DIR ?? '',
    BACKUP_DIR: input.BACKUP_DIR ?? '',
  });
}

/** GET /api/paths/check as the acting user may see it (the factory's doc comment says what each role gets). */
function checkPathAs(c: Ctx, actor: Actor, path: string, key?: PathCheckKey): PathCheckT {
  const { rules } = c.d;
  const r = checkPath(path, key, rules);
  if (key === 'ALLOWED_HOST_DIRS') {
    // An allowed host folder is judged by the save's own rule (relative; the root, a system folder, the socket or
    // Kade's own folders: `system`), for admins only, who alone edit it; apps bind it, so Kade's reach does not matter.
    requireRole(actor, 'admin', 'the check of an allowed host folder');
    const reason = !r.path.startsWith('/') ? 'relative' : allowedDirProblem(r.path, kadeFolders(c)) ? 'system' : null;
    return { ...r, ok: reason === null, reason, fix: null };
  }
  if (roleAllows(actor.role, 'admin')) return r;
  const real = realPathOf(r.path);
  const within = (dir: string) => isInside(r.path, normalisePath(dir)) || isInside(real, realPathOf(normalisePath(dir)));
  const withinBoth = (dir: string) => isInside(r.path, normalisePath(dir)) && isInside(real, realPathOf(normalisePath(dir)));
  const hidden = [c.pathsInUse.LIBRARY_DIR, c.pathsInUse.BACKUP_DIR, c.d.stateDir].some(within);
  // The mounted BASE_DIR stays readable (an operator adopts a folder below it), Kade's own folders in it do not.
  const inArea = r.path.startsWith('/') && !hidden && [rules.mountedBase, ...c.state().plain.ALLOWED_HOST_DIRS].some(withinBoth);
  if (inArea) return r;
  return { path: r.path, exists: false, writable: false, inside_base: false, ok: false, fix: null, reason: 'not_allowed', base: r.base };
}

function backupSettings(p: SettingsState['plain']) {
  return {
    BACKUP_APPDATA: p.BACKUP_APPDATA,
    BACKUP_COMPRESSION: p.BACKUP_COMPRESSION,
    BACKUP_SCHEDULE_MODE: p.BACKUP_SCHEDULE_MODE,
    BACKUP_SCHEDULE_DAY: p.BACKUP_SCHEDULE_DAY,
    BACKUP_SCHEDULE_HOUR: p.BACKUP_SCHEDULE_HOUR,
    BACKUP_RETENTION_COUNT: p.BACKUP_RETENTION_COUNT,
    BACKUP_RETENTION_DAYS: p.BACKUP_RETENTION_DAYS,
    DISK_MIN_FREE_GB: p.DISK_MIN_FREE_GB,
    DISK_WARN_PCT: p.DISK_WARN_PCT,
    BACKUP_OFFSITE_DIR: p.BACKUP_OFFSITE_DIR,
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
