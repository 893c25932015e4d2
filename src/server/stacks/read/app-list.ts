import { createHash } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import type { StackDetailT, StackT, StackUpdateInfo } from '../../../shared/api.ts';
import type { CatalogueService } from '../../catalogue/catalogue.service.ts';
import { repoCacheStatus } from '../../catalogue/repo-cache-status.ts';
import { AppError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { ContainerSummary } from '../../engine/engine.ts';
import type { Fleet } from '../../engine/fleet.ts';
import type { JobsService } from '../../jobs/jobs.service.ts';
import type { StackDirs } from '../store/stack-dir.ts';
import { groupByApp, listingOrNull, NEVER_CHECKED, presentStack, stackNames } from './listing.ts';

export interface AppListDeps {
  libraryDir: string;
  dirs: StackDirs;
  /** The containers of compose projects: the container model's, or a shared live listing. */
  listing: () => Promise<ContainerSummary[]>;
  fleet?: Pick<Fleet, 'version'>;
  /** The last known update state of an app and its time. */
  update: (name: string) => StackUpdateInfo;
  /** Told the apps someone looks at, so a stale update state is refreshed in the background (updates/). */
  look?: (names: readonly string[]) => void;
  jobs: Pick<JobsService, 'list' | 'changes'>;
  catalogue: Pick<CatalogueService, 'list' | 'changes' | 'apps'>;
  logger: Logger;
}

/**
 * A short token of the files' identity, time and size: Kade writes them by rename (a new inode), an editor in
 * place (a new time or size), so any change moves it. A missing file counts as such.
 */
export function filesVersion(files: readonly (string | null)[]): string {
  const parts = files.map((f) => {
    const st = f ? statSync(f, { throwIfNoEntry: false, bigint: true }) : undefined;
    return st ? `${st.ino}-${st.mtimeNs}-${st.size}` : '-';
  });
  return createHash('sha256').update(parts.join('|')).digest('hex').slice(0, 16);
}

const sameUpdate = (a: StackUpdateInfo, b: StackUpdateInfo | undefined): boolean => a.update === b?.update && a.update_checked_at === b.update_checked_at;

/** A value computed again only when `counter` has moved since it was last computed. */
function memoBy<T>(counter: () => number, compute: () => T): () => T {
  let memo: { at: number; value: T } | null = null;
  return () => {
    const at = counter();
    if (memo?.at !== at) memo = { at, value: compute() };
    return memo.value;
  };
}

type ListBase = Omit<StackT, 'failure' | 'update' | 'update_checked_at' | 'repo_status'>[];

/**
 * What the list and the app view compute from the container model (the apps' files, their grouping) is kept for
 * CACHE_MS while the model has not changed: a change of a container shows at once, one of the files within
 * CACHE_MS; what changes apart from the containers (update state, repo status, failed jobs) is never kept. Under load this takes the app list from hundreds of file checks per request to one per CACHE_MS.
 */
const CACHE_MS = 500;

/** Every LIST_SLICE apps the event loop gets a turn while the list is built. */
const LIST_SLICE = 50;

/** The app list's state between answers: the caches, the builds under way, the bytes sent last. */
interface ListState {
  d: AppListDeps;
  cache: Map<string, { version: number; at: number; value: unknown }>;
  building: Map<string, { version: number | null; base: Promise<ListBase> }>;
  listBytes: Map<string, { base: ListBase; jobs: number; repos: number; updates: StackUpdateInfo[]; bytes: Uint8Array<ArrayBuffer> }>;
  repoStatuses: () => (repo: string) => StackT['repo_status'];
  storeVersions: () => (repo: string, app: string) => string | null;
  lastFailures: () => Map<string, NonNullable<StackT['failure']>>;
}

function fromCache(s: ListState, key: string): unknown {
  const version = s.d.fleet?.version() ?? null;
  const hit = s.cache.get(key);
  if (version === null || !hit || hit.version !== version || Date.now() - hit.at > CACHE_MS) return undefined;
  return hit.value;
}

function toCache(s: ListState, key: string, version: number | null, value: unknown): void {
  if (version === null) return;
  // A handful of keys (list per host name, the grouping); old ones go when the model changes.
  if (s.cache.size > 32) s.cache.clear();
  s.cache.set(key, { version, at: Date.now(), value });
}

function groupsOf(s: ListState, containers: ContainerSummary[]): Map<string, ContainerSummary[]> {
  const hit = fromCache(s, 'groups');
  if (hit) return hit as Map<string, ContainerSummary[]>;
  const version = s.d.fleet?.version() ?? null;
  const groups = groupByApp(containers, s.d.dirs);
  toCache(s, 'groups', version, groups);
  return groups;
}

/** An unreadable folder is not an empty one: say so, so the interface can tell the user which setting to fix. */
function checkLibrary(libraryDir: string): void {
  try {
    accessSync(libraryDir, constants.R_OK | constants.X_OK);
    if (!statSync(libraryDir).isDirectory()) throw new Error('not a folder');
  } catch (err) {
    throw new AppError(
      'library_unreadable',
      `LIBRARY_DIR '${libraryDir}' cannot be read (${(err as Error).message}); fix its rights or set LIBRARY_DIR / BASE_DIR`,
      {
        params: { path: libraryDir },
      },
    );
  }
}

/** What the list takes from the files and the containers: kept for CACHE_MS while the container model stands still. */
async function listBase(s: ListState, host: string): Promise<ListBase> {
  checkLibrary(s.d.libraryDir);
  const containers = await listingOrNull(s.d.listing, (msg) => s.d.logger.warn({ msg }, 'engine listing failed'));
  const cached = fromCache(s, `list ${host}`) as ListBase | undefined;
  if (cached) return cached;
  const version = s.d.fleet?.version() ?? null;
  // Answers that ask while one is being built wait for it, but only when it was started on the same container
  // model: after a change (or without a model) each answer builds its own, so nothing older is ever joined.
  const running = s.building.get(host);
  if (running && version !== null && running.version === version) return running.base;
  const base = buildBase(s, host, containers).finally(() => {
    if (s.building.get(host)?.base === base) s.building.delete(host);
  });
  s.building.set(host, { version, base });
  const built = await base;
  toCache(s, `list ${host}`, version, built);
  return built;
}

/**
 * Each app's part from its files; every LIST_SLICE apps the event loop gets a turn, so a large fleet's
 * rebuild (every CACHE_MS under load) never holds up the answers in flight.
 */
async function buildBase(s: ListState, host: string, containers: ContainerSummary[] | null): Promise<ListBase> {
  const groups = containers ? groupsOf(s, containers) : null;
  const noRepo = () => null;
  const names = stackNames(s.d.libraryDir);
  const base: ListBase = [];
  for (let i = 0; i < names.length; i++) {
    if (i > 0 && i % LIST_SLICE === 0) await new Promise<void>((r) => setImmediate(r));
    const n = names[i] as string;
    const {
      containers: _c,
      update: _u,
      update_checked_at: _a,
      repo_status: _r,
      ...rest
    } = presentStack(s.d.dirs, n, groups ? (groups.get(n) ?? []) : null, { host, repoStatus: noRepo, storeVersion: s.storeVersions() });
    base.push(rest);
  }
  return base;
}

// The update state, the repo's cache status and the last failed job change without any container changing:
// they are looked at for every answer, never kept with the cached part.
function withOverlay(s: ListState, base: ListBase, updates: StackUpdateInfo[]): StackT[] {
  const repoStatus = s.repoStatuses();
  const failures = s.lastFailures();
  return base.map((app, i) => ({
    ...app,
    ...(updates[i] ?? NEVER_CHECKED),
    repo_status: app.source ? repoStatus(app.source.repo) : null,
    failure: app.status === 'running' ? null : (failures.get(app.name) ?? null),
  }));
}

/**
 * The list as JSON bytes, serialised again only when its base, a job, a repo or an app's update state changed:
 * under load most answers send the same bytes, with nothing built per request.
 */
async function listJson(s: ListState, host: string): Promise<Uint8Array<ArrayBuffer>> {
  const base = await listBase(s, host);
  const updates = base.map((app) => s.d.update(app.name));
  s.d.look?.(base.map((app) => app.name));
  const jobs = s.d.jobs.changes();
  const repos = s.d.catalogue.changes();
  const hit = s.listBytes.get(host);
  if (hit && hit.base === base && hit.jobs === jobs && hit.repos === repos && hit.updates.every((u, i) => sameUpdate(u, updates[i]))) return hit.bytes;
  const bytes = Buffer.from(JSON.stringify(withOverlay(s, base, updates)));
  // One entry per host name the interface is reached by; a handful at most.
  if (s.listBytes.size > 8) s.listBytes.clear();
  s.listBytes.set(host, { base, jobs, repos, updates, bytes });
  return bytes;
}

/** Per app, its newest job when that one failed or was cut off. */
function readLastFailures(d: AppListDeps): Map<string, NonNullable<StackT['failure']>> {
  const seen = new Set<string>();
  const out = new Map<string, NonNullable<StackT['failure']>>();
  for (const j of d.jobs.list(500)) {
    if (!j.stack || seen.has(j.stack)) continue;
    seen.add(j.stack);
    if (j.state === 'failed' || j.state === 'interrupted') {
      out.set(j.stack, { job: j.id, kind: j.kind.replace(/^stack\./, ''), state: j.state, message: j.error ?? '' });
    }
  }
  return out;
}

async function get(s: ListState, name: string, host: string): Promise<StackDetailT> {
  const { dirs } = s.d;
  dirs.locate(name);
  s.d.look?.([name]);
  const containers = await listingOrNull(s.d.listing, () => undefined);
  const opts = { host, repoStatus: s.repoStatuses(), update: s.d.update, storeVersion: s.storeVersions() };
  const app = presentStack(dirs, name, containers ? (groupsOf(s, containers).get(name) ?? []) : null, opts);
  const loc = dirs.find(name);
  return {
    ...app,
    failure: app.status === 'running' ? null : (s.lastFailures().get(name) ?? null),
    files_version: loc ? filesVersion([loc.composeFile, loc.envPath, loc.metaPath]) : null,
  };
}

/** The read side of the installed apps: the app list (as JSON bytes kept between answers) and one app's view. */
export function createAppList(d: AppListDeps) {
  const s: ListState = {
    d,
    cache: new Map(),
    building: new Map(),
    listBytes: new Map(),
    /** The cache status of every repo; read again only after a repo was written. A removed repo has none. */
    repoStatuses: memoBy(d.catalogue.changes, () => {
      const byId = new Map(d.catalogue.list().map((r) => [r.id, repoCacheStatus(r)]));
      return (repo: string): StackT['repo_status'] => byId.get(repo) ?? null;
    }),
    /** The version of every app of the store; read again only after a repo was written (a sync). */
    storeVersions: memoBy(d.catalogue.changes, () => {
      const byApp = new Map(d.catalogue.apps().map((a) => [`${a.repo}/${a.app}`, a.template.version]));
      return (repo: string, app: string) => byApp.get(`${repo}/${app}`) ?? null;
    }),
    /** Read again only after a job started or ended. */
    lastFailures: memoBy(d.jobs.changes, () => readLastFailures(d)),
  };
  return { listJson: (host: string) => listJson(s, host), get: (name: string, host: string) => get(s, name, host) };
}
