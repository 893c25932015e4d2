import { isAbsolute } from 'node:path';
import { isInside, normalisePath } from '../../shared/paths.ts';
import type { PathMoveT } from '../../shared/settings.ts';
import { bytesBelow, deviceOf, freeFor } from '../core/disk.ts';
import { AppError } from '../core/errors.ts';
import type { Actor } from '../core/events.ts';
import { KEYS, type KeyedMove } from './move-record.ts';
import type { PathMoveDeps } from './path-move.ts';
import { exists, isEmptyDir } from './tree.ts';

type PlanDeps = Pick<PathMoveDeps, 'settings' | 'store' | 'stateDir'>;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/** The request checked against the folders in use: refused with a clear reason before anything is touched. */
export function plan(d: PlanDeps, actor: Actor, req: PathMoveT): KeyedMove[] {
  const now = d.settings.pathsInUse();
  const moves: KeyedMove[] = [];
  for (const key of KEYS) {
    const raw = req[key];
    if (raw === undefined || raw.trim() === '') continue;
    if (!isAbsolute(raw)) throw new AppError('validation', `${key}: '${raw}' is not an absolute path`, { params: { field: key, path: raw }, fields: [key] });
    const to = normalisePath(raw);
    if (to === now[key]) continue;
    moves.push({ key, from: now[key], to });
  }
  if (moves.length === 0) throw new AppError('validation', 'nothing to move: every folder given is the one in use', { fields: [...KEYS] });

  const kade = [...KEYS.map((k) => now[k]), d.stateDir];
  for (const m of moves) {
    const refuse = (why: string, code: 'validation' | 'conflict' = 'validation') => {
      throw new AppError(code, `${m.key}: ${m.to} ${why}`, { params: { field: m.key, path: m.to }, fields: [m.key] });
    };
    const c = d.settings.checkPath(actor, m.to, m.key);
    if (!c.ok) refuse(`cannot be used (${c.reason ?? 'not usable'})${c.fix ? `; fix: ${c.fix}` : ''}`);
    if (kade.some((k) => isInside(m.to, k) || isInside(k, m.to))) refuse("lies inside one of Kade's folders or holds one");
    if (moves.some((o) => o !== m && (isInside(m.to, o.to) || isInside(o.to, m.to)))) refuse('overlaps another new folder');
    if (exists(m.to) && !isEmptyDir(m.to)) refuse('is not empty: move into a new or empty folder', 'conflict');
  }
  // Adopted apps stay where the user keeps them: their folder must not be inside a folder that goes away.
  for (const a of d.store.adoptedPaths()) {
    const m = moves.find((x) => isInside(a.path, x.from));
    if (m)
      throw new AppError('conflict', `app '${a.name}' was adopted from ${a.path}, which lies inside ${m.key}; move it out first`, {
        params: { stack: a.name, path: a.path },
        fields: [m.key],
      });
  }
  // The copy needs the space of everything copied on each target disk (old and new share a disk: both exist for a while).
  const needs = new Map<number, { bytes: number; free: number; where: string }>();
  for (const m of moves) {
    const dev = deviceOf(m.to);
    const cur = needs.get(dev) ?? { bytes: 0, free: freeFor(m.to).free, where: m.to };
    cur.bytes += bytesBelow(m.from);
    needs.set(dev, cur);
  }
  for (const n of needs.values()) {
    if (n.bytes > n.free) {
      throw new AppError('disk_full', `not enough space for the move: ${mb(n.bytes)} to copy, ${mb(n.free)} free at ${n.where}`, {
        params: { path: n.where, needed: n.bytes, free: n.free },
      });
    }
  }
  return moves;
}
