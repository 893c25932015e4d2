import { readdirSync } from 'node:fs';
import type { DoctorCheckT, DoctorCode } from '../../shared/doctor.ts';
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

/** Where Kade runs: in its own container, or started from a checkout (then there is no container to speak of). */
export type Side = 'container' | 'checkout';

/** The English of each finding of a folder, per side; `{where}`, `{inside}`, `{outside}` and `{why}` filled in. */
const WORDS: Record<string, Record<Side, string>> = {
  missing_here: {
    container: "{where} is missing in the container but exists on the host with {outside}: it is not mounted into Kade's container",
    checkout: "{where} is missing where Kade runs but exists on the engine's host with {outside}: Kade and the engine do not see the same folders",
  },
  empty_here: {
    container: "{where} is empty in the container while the host has {outside}: the host folder is not mounted into Kade's container",
    checkout: "{where} is empty where Kade runs while the engine's host has {outside}: Kade and the engine do not see the same folders",
  },
  missing_both: {
    container: '{where} is missing in the container and on the host (Kade makes its folders when it starts)',
    checkout: "{where} is missing where Kade runs and on the engine's host (Kade makes its folders when it starts)",
  },
  missing: { container: '{where} is missing in the container', checkout: '{where} is missing where Kade runs' },
  unusable: {
    container: '{where}: inside the container {inside}, on the host {outside}',
    checkout: "{where}: where Kade runs {inside}, on the engine's host {outside}",
  },
  unseen: {
    container: '{where}: inside the container {inside}; the host side could not be looked at{why}',
    checkout: "{where}: where Kade runs {inside}; the engine's host could not be looked at{why}",
  },
  gone_outside: {
    container: "{where} is {outside} on the host but present in the container ({inside}): the container does not see the host's folder",
    checkout: "{where} is {outside} on the engine's host but present where Kade runs ({inside}): Kade and the engine do not see the same folders",
  },
  differ: {
    container: '{where}: inside the container {inside}, on the host {outside} (they differ; files being written right now explain a small difference)',
    checkout: "{where}: where Kade runs {inside}, on the engine's host {outside} (they differ; files being written right now explain a small difference)",
  },
  ok: {
    container: '{where}: inside the container {inside}, on the host {outside}',
    checkout: "{where}: where Kade runs {inside}, on the engine's host {outside}",
  },
};

/**
 * One folder seen from where Kade runs and from the engine's host. The two cases that mean "BASE_DIR is not really
 * mounted" are errors with the route back (recreate the container, so the engine mounts it again): the folder
 * missing inside while the host has it, and empty inside while the host has content. `outside` is null when the host
 * could not be looked at (`why` says why). Started from a checkout (`side`), no container is named and none is
 * recreated.
 */
export function compareFolder(
  path: string,
  hostPath: string,
  inside: Seen,
  outside: Seen | null,
  recreate: string,
  why?: string,
  side: Side = 'container',
): DoctorCheckT {
  const id = `mount:${path}`;
  const where = hostPath === path ? repr(path) : `${repr(path)} (on the host ${repr(hostPath)})`;
  const params: Record<string, string | number> = { path: repr(path), inside, outside: outside ?? 'unknown' };
  if (hostPath !== path) params.host_path = repr(hostPath);
  if (why) params.why = why;
  const fix = side === 'container' ? recreate : null;
  const finding = (kind: string, status: DoctorCheckT['status'], withFix: boolean): DoctorCheckT => {
    const words = WORDS[kind]?.[side] ?? kind;
    const message = words
      .replace('{where}', () => where)
      .replace('{inside}', () => describe(inside))
      .replace('{outside}', () => describe(outside))
      .replace('{why}', () => (why ? `: ${why}` : ''));
    return { id, status, message, code: `mount_${kind}_${side}` as DoctorCode, params, fix: withFix ? fix : null };
  };
  if (inside === 'missing' && typeof outside === 'number') return finding('missing_here', 'error', true);
  if (inside === 0 && typeof outside === 'number' && outside > 0) return finding('empty_here', 'error', true);
  if (inside === 'missing' && outside === 'missing') return finding('missing_both', 'warn', true);
  if (inside === 'missing') return finding('missing', 'error', true);
  if (inside === 'unreadable' || inside === 'not_a_folder') return finding('unusable', 'error', false);
  if (outside === null) return finding('unseen', 'warn', false);
  if (outside === 'missing' || outside === 'not_a_folder') return finding('gone_outside', 'error', true);
  if (inside !== outside) return finding('differ', 'warn', false);
  return finding('ok', 'ok', false);
}
