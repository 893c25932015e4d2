import { existsSync, lstatSync, readdirSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The nearest folder that exists at or above a (maybe not yet existing) path. */
export function nearestExisting(path: string): string {
  let dir = path;
  while (!existsSync(dir) && dir !== dirname(dir)) dir = dirname(dir);
  return dir;
}

/** Bytes free for a (maybe not yet existing) path: on the file system of its nearest existing folder. */
export function freeFor(path: string): { dir: string; free: number } {
  const dir = nearestExisting(path);
  const s = statfsSync(dir);
  return { dir, free: s.bavail * s.bsize };
}

/** The file system a (maybe not yet existing) path would be on. */
export const deviceOf = (path: string): number => Number(lstatSync(nearestExisting(path)).dev);

/**
 * Bytes of the regular files at or below a path (links not followed): what a copy or an archive of it
 * needs at most. A folder that cannot be read counts as empty; the copy or the backup says so itself.
 */
export function bytesBelow(path: string): number {
  let total = 0;
  const stack = [path];
  while (stack.length > 0) {
    const p = stack.pop() as string;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) {
      try {
        for (const n of readdirSync(p)) stack.push(join(p, n));
      } catch {
        // unreadable: left out of the count
      }
    } else if (st.isFile()) total += st.size;
  }
  return total;
}
