/**
 * Pure rules about host paths, shared by the server's checks and the interface's
 * hints. No `node:path` here: the interface uses it too, and paths are POSIX.
 */

/**
 * Where a fresh install puts BASE_DIR (install.sh's DEFAULT_BASE_DIR, outside its install folder /opt/kade); the fix
 * line for a folder Kade must never use, so the advice is one the installer takes.
 */
export const DEFAULT_BASE_DIR = '/opt/kade-data';

/** Folders Kade never writes to, nor anywhere below them. */
const SYSTEM_TREES = [
  '/etc',
  '/proc',
  '/sys',
  '/boot',
  '/dev',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/run',
  '/var/run',
  '/var/lib/docker',
];
/** Roots that are fine to hold Kade's folder but must not be that folder themselves. */
const SYSTEM_ROOTS = ['/', '/var', '/opt', '/home', '/srv', '/mnt', '/media', '/root', '/tmp', '/var/lib'];

/** Collapses `//`, `.` and `..` and drops a trailing slash; a relative path stays relative. */
export function normalisePath(raw: string): string {
  const p = raw.trim();
  const absolute = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out.at(-1) !== '..') out.pop();
      else if (!absolute) out.push('..');
    } else out.push(part);
  }
  const joined = out.join('/');
  return absolute ? `/${joined}` : joined;
}

export const joinPath = (base: string, name: string): string => normalisePath(`${base}/${name}`);

/** The parent folder; `/` for a top-level folder. */
export function parentPath(p: string): string {
  const n = normalisePath(p);
  const cut = n.lastIndexOf('/');
  return cut <= 0 ? '/' : n.slice(0, cut);
}

/** Whether `p` is `dir` itself or lies below it. Both must be normalised and absolute. */
export const isInside = (p: string, dir: string): boolean => p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);

/** Whether Kade must refuse the folder: a system folder, or the engine's socket (or anything below it). */
export function isSystemPath(path: string, engineSocket?: string): boolean {
  const p = normalisePath(path);
  if (SYSTEM_ROOTS.includes(p)) return true;
  if (engineSocket && isInside(p, normalisePath(engineSocket))) return true;
  return SYSTEM_TREES.some((dir) => isInside(p, dir));
}
