import { readdirSync } from 'node:fs';
import type { DoctorCheckT } from '../../shared/doctor.ts';
import { isInside } from '../../shared/paths.ts';
import { repr } from './repr.ts';

/** What one side sees at a path: its number of entries, or why there is no number. */
export type Seen = number | 'missing' | 'not_a_folder' | 'unreadable';

/** A bind mount of Kade's own container, as the engine reports it. */
export interface BindMount {
  source: string;
  destination: string;
}

/** The host's path for a path inside the container: through the deepest bind mount that holds it, else the same path (Kade's compose file mounts BASE_DIR at the same path). */
export function hostPathOf(path: string, mounts: readonly BindMount[]): string {
  let best: BindMount | null = null;
  for (const m of mounts) if (isInside(path, m.destination) && (!best || m.destination.length > best.destination.length)) best = m;
  if (!best) return path;
  const rest = path.slice(best.destination.length).replace(/^\/+/, '');
  return rest ? `${best.source.replace(/\/+$/, '')}/${rest}` : best.source;
}

/** The folders to compare: BASE_DIR, Kade's folders, and every bind mount at or under BASE_DIR; each once. */
export function foldersToCompare(baseDir: string, folders: readonly string[], mounts: readonly BindMount[]): string[] {
  const out = [baseDir, ...folders, ...mounts.map((m) => m.destination).filter((d) => isInside(d, baseDir))];
  return [...new Set(out.map((p) => p.replace(/(.)\/+$/, '$1')))];
}

/** This process's view of a folder. */
export function seenHere(path: string): Seen {
  try {
    return readdirSync(path).length;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') return 'not_a_folder';
    return 'unreadable';
  }
}

const describe = (s: Seen | null): string =>
  s === null ? 'unknown' : typeof s === 'number' ? `${s} ${s === 1 ? 'entry' : 'entries'}` : s === 'not_a_folder' ? 'not a folder' : s;

/**
 * One folder seen from inside Kade's container and from the host. The two cases that mean "BASE_DIR is
 * not really mounted" are errors with the route back (recreate the container, so the engine mounts it
 * again): the folder missing inside while the host has it, and empty inside while the host has content.
 * `outside` is null when the host could not be looked at (`why` says why).
 */
export function compareFolder(path: string, hostPath: string, inside: Seen, outside: Seen | null, recreate: string, why?: string): DoctorCheckT {
  const id = `mount:${path}`;
  const where = hostPath === path ? repr(path) : `${repr(path)} (on the host ${repr(hostPath)})`;
  const both = `inside the container ${describe(inside)}, on the host ${describe(outside)}`;
  if (inside === 'missing' && typeof outside === 'number')
    return {
      id,
      status: 'error',
      message: `${where} is missing in the container but exists on the host with ${describe(outside)}: it is not mounted into Kade's container`,
      fix: recreate,
    };
  if (inside === 0 && typeof outside === 'number' && outside > 0)
    return {
      id,
      status: 'error',
      message: `${where} is empty in the container while the host has ${describe(outside)}: the host folder is not mounted into Kade's container`,
      fix: recreate,
    };
  if (inside === 'missing' && outside === 'missing')
    return { id, status: 'warn', message: `${where} is missing in the container and on the host (Kade makes its folders when it starts)`, fix: recreate };
  if (inside === 'missing') return { id, status: 'error', message: `${where} is missing in the container`, fix: recreate };
  if (inside === 'unreadable' || inside === 'not_a_folder') return { id, status: 'error', message: `${where}: ${both}`, fix: null };
  if (outside === null)
    return {
      id,
      status: 'warn',
      message: `${where}: inside the container ${describe(inside)}; the host side could not be looked at${why ? `: ${why}` : ''}`,
      fix: null,
    };
  if (outside === 'missing' || outside === 'not_a_folder')
    return {
      id,
      status: 'error',
      message: `${where} is ${describe(outside)} on the host but present in the container (${describe(inside)}): the container does not see the host's folder`,
      fix: recreate,
    };
  if (inside !== outside)
    return { id, status: 'warn', message: `${where}: ${both} (they differ; files being written right now explain a small difference)`, fix: null };
  return { id, status: 'ok', message: `${where}: ${both}`, fix: null };
}
