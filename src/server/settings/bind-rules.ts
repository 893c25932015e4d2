import { isInside, joinPath, normalisePath } from '../../shared/paths.ts';
import { realPathOf } from './path-check.ts';

/**
 * The folders the bind policy (bind-policy.ts) and the shape of binds (bind-structure.ts) judge against, and how a
 * path is spelled for them: as written (normalised) and with the links of its existing part followed.
 */
export interface BindRules {
  dataDir: string;
  libraryDir: string;
  /** SVC_DATA: Kade's database, snapshots and keys. */
  stateDir: string;
  backupDir: string;
  engineSocket: string | null;
  /** ALLOWED_HOST_DIRS as it is now (read per check, so a saved change applies at once). */
  allowedHostDirs: () => readonly string[];
}

export interface BindScope {
  /** The app's name: its data folder is DATA_DIR/<app>. */
  app: string;
  /** The folder relative paths resolve against: LIBRARY_DIR/<app>, or an adopted app's own folder. */
  stackDir: string;
}

const DEFAULT_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock'];
/** Host folders no admin can allow: kernel interfaces, host configuration and devices. */
const NEVER_ALLOWED = ['/etc', '/proc', '/sys', '/boot', '/dev'];

/** A path as written (normalised) and with the links of its existing part followed. */
export const spellings = (p: string): string[] => {
  const n = normalisePath(p);
  return [...new Set([n, realPathOf(n)])];
};

export const ownDataDir = (rules: Pick<BindRules, 'dataDir'>, app: string): string => joinPath(rules.dataDir, app);

export const sockets = (engineSocket: string | null) => [...DEFAULT_SOCKETS, ...(engineSocket ? [engineSocket] : [])];

/** Why a folder cannot be an allowed host folder (ALLOWED_HOST_DIRS), or null when it can. */
export function allowedDirProblem(raw: string, k: Omit<BindRules, 'allowedHostDirs' | 'dataDir'>): string | null {
  if (!raw.trim().startsWith('/')) return 'is not an absolute path';
  const p = normalisePath(raw);
  if (p === '/') return 'is the root of the host';
  const kade = [...sockets(k.engineSocket), k.stateDir, k.libraryDir, k.backupDir].map(normalisePath);
  for (const x of spellings(p)) {
    if (x === '/') return 'is the root of the host';
    for (const f of [...NEVER_ALLOWED, ...kade].flatMap(spellings)) {
      if (isInside(x, f) || isInside(f, x)) return `lies in or holds ${f}, which no app may use`;
    }
  }
  return null;
}

/** The admin's list with every entry that is no longer a valid allowed folder dropped (a hand edit, a changed socket). */
export function allowedDirs(rules: BindRules): string[] {
  return rules
    .allowedHostDirs()
    .filter((d) => allowedDirProblem(d, rules) === null)
    .map(normalisePath);
}
