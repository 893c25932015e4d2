import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StackDetailT, StackT, StackUpdateInfo } from '../../../shared/api.ts';
import { isSafeName } from '../../../shared/names.ts';
import { errorMessage } from '../../core/errors.ts';
import type { ContainerSummary, Engine } from '../../engine/engine.ts';
import type { StackDirs } from '../store/stack-dir.ts';
import { isDirectory, readComposeSummary, type StackMetaT } from '../store/stack-files.ts';

type Status = StackT['status'];

/** Concurrent callers share one engine listing instead of each asking the engine. */
export function sharedListing(engine: Engine, opts: { composeOnly: boolean } = { composeOnly: true }): () => Promise<ContainerSummary[]> {
  let inflight: Promise<ContainerSummary[]> | null = null;
  return () => {
    inflight ??= engine.listContainers(opts).finally(() => {
      inflight = null;
    });
    return inflight;
  };
}

export function statusOf(services: string[], containers: ContainerSummary[]): Status {
  if (containers.length === 0) return 'stopped';
  if (containers.some((c) => c.state === 'restarting')) return 'restarting';
  const running = new Set(containers.filter((c) => c.state === 'running').map((c) => c.service));
  const expected = services.length > 0 ? services : [...new Set(containers.map((c) => c.service))];
  const up = expected.filter((s) => running.has(s)).length;
  if (up === 0) return 'stopped';
  return up === expected.length ? 'running' : 'partial';
}

/**
 * Containers grouped by the stack they belong to: compose project name, or working dir under LIBRARY_DIR.
 * `adopted` maps the project name of an adopted app's containers to the app's name.
 */
export function groupByStack(list: ContainerSummary[], libraryDir: string, adopted: ReadonlyMap<string, string> = new Map()): Map<string, ContainerSummary[]> {
  const groups = new Map<string, ContainerSummary[]>();
  for (const c of list) {
    const fromDir = c.workingDir?.startsWith(`${libraryDir}/`) ? c.workingDir.slice(libraryDir.length + 1).split('/')[0] : undefined;
    const key = fromDir ?? (c.project ? (adopted.get(c.project) ?? c.project) : null);
    if (!key) continue;
    const arr = groups.get(key) ?? [];
    arr.push(c);
    groups.set(key, arr);
  }
  return groups;
}

export function stackNames(libraryDir: string): string[] {
  try {
    // The folder's own listing tells folders from links: only a link (an adopted app) needs a look at its target.
    return readdirSync(libraryDir, { withFileTypes: true })
      .filter((e) => isSafeName(e.name) && (e.isDirectory() || (e.isSymbolicLink() && isDirectory(join(libraryDir, e.name)))))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** An app no check has answered for yet. */
export const NEVER_CHECKED: StackUpdateInfo = { update: 'unknown', update_checked_at: null };

export interface PresentOptions {
  host: string;
  repoStatus: (repo: string) => StackT['repo_status'];
  /** The last known registry update state of a stack and its time; never a registry call. */
  update?: (name: string) => StackUpdateInfo;
  /** The version of an app's template in the store now; null when the store has no such app. */
  storeVersion?: (repo: string, app: string) => string | null;
}

/** The store's version of the app's template when it is another than the one the app's files were rendered from. */
function templateUpdate(meta: StackMetaT | null, opts: PresentOptions): string | null {
  const installed = meta?.template_version ?? null;
  const now = meta?.source && opts.storeVersion ? opts.storeVersion(meta.source.repo, meta.source.app) : null;
  return installed !== null && now !== null && now !== installed ? now : null;
}

/** One stack as the list shows it, from its files (cached by mtime) and its containers. */
export function presentStack(dirs: StackDirs, name: string, containers: ContainerSummary[] | null, opts: PresentOptions): Omit<StackDetailT, 'files_version'> {
  const loc = dirs.find(name);
  const meta = loc ? dirs.meta(loc) : null;
  const file = loc?.composeFile ?? null;
  const summary = file ? readComposeSummary(file) : null;
  const services = summary?.services ?? [];
  let status: Status;
  let warning: string | null = null;
  if (!file) {
    status = 'missing_compose';
    warning = 'no_compose_file';
  } else if (!summary?.valid) {
    status = containers === null ? 'unknown' : statusOf([], containers);
    warning = 'compose_unreadable';
  } else status = containers === null ? 'unknown' : statusOf(services, containers);
  if (containers === null && file) warning = 'engine_unreachable';
  const web = meta?.web;
  return {
    name,
    status,
    services,
    url: web ? `${web.scheme}://${opts.host}:${web.port}${web.path}` : null,
    categories: meta?.categories.length ? meta.categories : ['overig'],
    ...(opts.update?.(name) ?? NEVER_CHECKED),
    source: meta?.source ? { repo: meta.source.repo, app: meta.source.app } : null,
    repo_status: meta?.source ? opts.repoStatus(meta.source.repo) : null,
    template_update: templateUpdate(meta, opts),
    adopted: loc?.adopted ?? false,
    warning,
    containers: (containers ?? []).map((c) => ({
      id: c.id,
      name: c.name,
      service: c.service ?? '',
      image: c.image,
      state: c.state,
      health: c.health,
      ports: c.ports,
    })),
  };
}

export async function listingOrNull(list: () => Promise<ContainerSummary[]>, onError: (msg: string) => void): Promise<ContainerSummary[] | null> {
  try {
    return await list();
  } catch (err) {
    onError(errorMessage(err));
    return null;
  }
}

/** Containers grouped by app, adopted apps included: the one grouping every listing of apps uses. */
export const groupByApp = (list: ContainerSummary[], dirs: StackDirs): Map<string, ContainerSummary[]> =>
  groupByStack(list, dirs.libraryDir, adoptedProjects(dirs));

/** Project name → app name of every adopted app whose containers carry another project name. */
export function adoptedProjects(dirs: StackDirs): Map<string, string> {
  const out = new Map<string, string>();
  for (const loc of dirs.adopted()) {
    const project = dirs.meta(loc)?.adopted?.project;
    if (project && project !== loc.name) out.set(project, loc.name);
  }
  return out;
}
