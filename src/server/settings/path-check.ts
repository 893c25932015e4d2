import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { DEFAULT_BASE_DIR, isInside, isSystemPath, normalisePath, parentPath } from '../../shared/paths.ts';
import type { PathCheckKey, PathCheckT, PathReason } from '../../shared/settings.ts';
import { AppError } from '../core/errors.ts';

/** What a path is judged against: the BASE_DIR mounted into Kade (the boot config), the engine socket, Kade's uid. */
export interface PathRules {
  mountedBase: string;
  engineSocket?: string | undefined;
  uid: number;
}

interface Probe {
  exists: boolean;
  isDir: boolean;
  writable: boolean;
  /** Owner of the path, or of the nearest folder above it that exists. */
  ownerUid: number | null;
  /** The nearest existing folder above it can take a new folder. */
  creatable: boolean;
  /** The path with symbolic links of its existing part resolved. */
  real: string;
}

const canWrite = (p: string): boolean => {
  try {
    accessSync(p, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    // EACCES, EROFS: not writable by this process.
    return false;
  }
};

const statOf = (p: string) => {
  try {
    return statSync(p);
  } catch {
    // ENOENT, ENOTDIR (a file in the way), EACCES: nothing usable there.
    return undefined;
  }
};

/** The path with the links of its existing part resolved (`existing`: its longest existing prefix, found when not given). */
export function realPathOf(path: string, existing?: string): string {
  let known = existing ?? path;
  while (existing === undefined && known !== '/' && !statOf(known)) known = parentPath(known);
  try {
    return normalisePath(`${realpathSync(known)}/${path.slice(known.length)}`);
  } catch {
    // A dangling link or a race: judge the literal path.
    return path;
  }
}

function probe(path: string): Probe {
  const own = statOf(path);
  let existing = path;
  let st = own;
  while (!st && existing !== '/') {
    existing = parentPath(existing);
    st = statOf(existing);
  }
  const real = realPathOf(path, existing);
  const existingIsDir = st?.isDirectory() ?? false;
  return {
    exists: own !== undefined,
    isDir: own?.isDirectory() ?? false,
    writable: own?.isDirectory() === true && canWrite(path),
    // A file in the way is not a matter of rights: no account fixes it.
    ownerUid: st && (own || existingIsDir) ? st.uid : null,
    creatable: !own && existingIsDir && canWrite(existing),
    real,
  };
}

function reasonFor(path: string, key: PathCheckKey | undefined, p: Probe, insideBase: boolean, rules: PathRules): PathReason | null {
  if (!path.startsWith('/')) return 'relative';
  if (isSystemPath(path, rules.engineSocket) || isSystemPath(p.real, rules.engineSocket)) return 'system';
  const offsite = key === 'BACKUP_OFFSITE_DIR';
  // The offsite folder is its own mount; everything else must be in the mounted BASE_DIR or it is lost with the container.
  if (!offsite && !insideBase) return 'outside_base';
  if (p.exists && !p.isDir) return 'not_a_directory';
  if (offsite && !p.exists) return 'missing';
  if (p.exists && !p.writable) return 'not_writable';
  if (!p.exists && !p.creatable) return 'not_creatable';
  return null;
}

/** The one `.env` line that makes the folder reachable, or null when no line can (a file, a system folder). */
function fixLine(path: string, key: PathCheckKey | undefined, reason: PathReason | null, p: Probe): string | null {
  switch (reason) {
    case null:
    case 'not_a_directory':
    case 'missing':
    case 'not_allowed':
      return null;
    case 'relative':
    case 'system':
      return key === 'BASE_DIR' ? `BASE_DIR=${DEFAULT_BASE_DIR}` : null;
    case 'not_writable':
    case 'not_creatable':
      return p.ownerUid === null ? null : `SVC_UID=${p.ownerUid}`;
    case 'outside_base': {
      if (key === 'BASE_DIR') return `BASE_DIR=${path}`;
      // Mount the folder that holds it, unless that is a system root; then the folder itself.
      const parent = parentPath(path);
      return `BASE_DIR=${isSystemPath(parent) ? path : parent}`;
    }
  }
}

/** Whether Kade can use `raw` as the folder named `key`, and the `.env` line that fixes it when not. */
export function checkPath(raw: string, key: PathCheckKey | undefined, rules: PathRules): PathCheckT {
  const path = normalisePath(raw);
  const base = normalisePath(rules.mountedBase);
  const absolute = path.startsWith('/');
  const p: Probe = absolute ? probe(path) : { exists: false, isDir: false, writable: false, ownerUid: null, creatable: false, real: path };
  let realBase = base;
  try {
    realBase = realpathSync(base);
  } catch {
    // The mounted base is missing; the literal comparison below still answers.
  }
  // A link inside the base that points out of it leaves the mount just the same.
  const insideBase = absolute && isInside(path, base) && (isInside(p.real, realBase) || isInside(p.real, base));
  const reason = reasonFor(path, key, p, insideBase, rules);
  return { path, exists: p.exists, writable: p.writable, inside_base: insideBase, ok: reason === null, fix: fixLine(path, key, reason, p), reason, base };
}

const EXPLAIN: Record<PathReason, (c: PathCheckT, uid: number) => string> = {
  relative: (c) => `is not an absolute path; use a full path such as ${c.base}/…`,
  system: (c) => `is a system folder or the engine socket, where Kade never writes; choose a folder under ${c.base}`,
  outside_base: (c) => `lies outside the folder mounted into Kade (${c.base}), so Kade cannot reach it; choose a folder under ${c.base}`,
  not_a_directory: () => 'is a file, not a folder',
  not_writable: (_c, uid) => `is not writable for Kade (uid ${uid})`,
  not_creatable: (_c, uid) => `does not exist and Kade (uid ${uid}) cannot create it`,
  missing: () => "does not exist; mount the offsite folder into Kade's container first",
  not_allowed: () => 'is not allowed',
};

/** The refusal of a setting whose folder Kade cannot reach: the reason, and the `.env` line in detail and params. */
export function pathRefusal(field: string, c: PathCheckT, uid: number, fields: string[]): AppError {
  const reason = c.reason ?? 'not_writable';
  const fix = c.fix ? `. Fix: put the line ${c.fix} in Kade's .env and recreate the container` : '';
  const params: Record<string, string> = { field, path: c.path, reason, base: c.base };
  if (c.fix) params.fix = c.fix;
  return new AppError('path_unreachable', `${field} '${c.path}' ${EXPLAIN[reason](c, uid)}${fix}`, { params, fields });
}
