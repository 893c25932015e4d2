import { lstatSync } from 'node:fs';
import { isInside, normalisePath, parentPath } from '../../../shared/paths.ts';
import { AppError } from '../../core/errors.ts';
import { allowedDirs, type BindRules, type BindScope, ownDataDir, spellings } from '../../settings/bind-rules.ts';
import type { HostSource } from '../../templates/compose-sources.ts';

/**
 * The shape of an app's binds, judged whoever acts: what a container could do to the files Kade runs compose from,
 * and what it could swap under another bind. The allow list (bind-policy.ts) says which folders; this says how.
 *  - No bind reaches the app's own folder as a whole, or the compose file, its overrides or `.env`: a container
 *    that writes them runs what it likes at the next `up` (an admin-confirmed read-only bind may read them).
 *  - No writable bind holds another bind's source: the container could replace that folder with a link to `/`,
 *    which the engine follows at the next start, even one after a reboot that no Kade check sees.
 *  - No bind source is a link, nor passes through one below the folder it is allowed in: checked right before
 *    each compose run, as the second layer.
 *  - No `include` or `extends.file`: a compose file read in defines services no policy sees.
 */
export interface StructureScope extends BindScope {
  /** The files compose reads for the app (compose file, overrides, `.env`). */
  files: readonly string[];
}

const refused = (reason: string, where: string, path: string, msg: string, field?: string | null) =>
  new AppError('compose_refused', msg, { params: { reason, where, path }, fields: [field ?? 'compose'] });

const absolute = (s: HostSource, scope: BindScope) => normalisePath(s.path.startsWith('/') ? s.path : `${scope.stackDir}/${s.path}`);

function reachesOwnFiles(path: string, scope: StructureScope): boolean {
  const targets = [scope.stackDir, ...scope.files].flatMap(spellings);
  return spellings(path).some((p) => targets.some((t) => isInside(t, p)));
}

/** The first link on the way from the folder a path is allowed in down to the path itself (the path included). */
export function linkOnTheWay(path: string, roots: readonly string[]): string | null {
  const all = roots.map(normalisePath);
  const root = all.find((r) => isInside(path, r) && r !== path);
  const stops: string[] = [];
  if (root !== undefined) for (let p = path; p !== root; p = parentPath(p)) stops.push(p);
  // A root itself (an app's own data folder) must be no link either; a path outside every root is the allow list's to
  // judge (links followed), and saying it is a link would tell a non-admin what exists there.
  else if (all.includes(path)) stops.push(path);
  for (const p of stops.reverse()) {
    try {
      if (lstatSync(p).isSymbolicLink()) return p;
    } catch {
      return null; // Not there yet: the engine creates the rest as folders.
    }
  }
  return null;
}

const mountsOf = (sources: HostSource[], scope: BindScope) => sources.filter((s) => s.kind === 'bind' && s.mount).map((s) => ({ s, path: absolute(s, scope) }));

/** Refuses the first bind source that is a link or passes through one below the folder it is allowed in. */
export function enforceNoLinks(sources: HostSource[], scope: BindScope, rules: BindRules, fieldOf?: (s: HostSource) => string | null): void {
  const mounts = mountsOf(sources, scope);
  const roots = [ownDataDir(rules, scope.app), scope.stackDir, ...allowedDirs(rules)];
  for (const { s, path } of mounts) {
    const link = linkOnTheWay(path, roots);
    if (link) {
      throw refused(
        'link',
        s.where,
        link,
        `${s.where} binds '${path}', but '${link}' is a link: a bind source must be a real folder or file, so no container can point it elsewhere on the host`,
        fieldOf?.(s),
      );
    }
  }
}

/**
 * Refuses the first bind that breaks the shape above (links aside: enforceNoLinks), naming it. `approvedOutside` holds the paths an admin
 * confirmed for this app: only those may read (never write) the app's own files.
 */
export function enforceStructure(sources: HostSource[], scope: StructureScope, approvedOutside: ReadonlySet<string> = new Set()): void {
  const binds = sources.filter((s) => s.kind === 'bind');
  for (const s of binds) {
    if (s.composeText) {
      throw refused(
        'compose_file_read_in',
        s.where,
        s.path,
        `${s.where} reads in another compose file ('${s.path}'): Kade judges only the compose file it runs, so include and extends.file are not allowed; put the services in the app's own compose file`,
      );
    }
  }
  const mounts = mountsOf(sources, scope);
  for (const { s, path } of mounts) {
    if (reachesOwnFiles(path, scope) && !(s.readOnly && approvedOutside.has(path))) {
      throw refused(
        'own_files',
        s.where,
        path,
        `${s.where} binds '${path}', which holds the files Kade runs the app from (${scope.stackDir}): a container must never reach its own compose file or .env; bind a folder below the app's data folder instead`,
      );
    }
  }
  for (const outer of mounts) {
    if (outer.s.readOnly) continue;
    const inner = mounts.find((m) => m !== outer && m.path !== outer.path && spellings(m.path).some((p) => spellings(outer.path).some((o) => isInside(p, o))));
    if (inner) {
      throw refused(
        'nested_bind',
        inner.s.where,
        inner.path,
        `${inner.s.where} binds '${inner.path}', which lies inside '${outer.path}' that ${outer.s.where} binds writable: a container could replace it with a link. Bind them as sibling folders`,
      );
    }
  }
}
