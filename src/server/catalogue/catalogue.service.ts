import { rmSync } from 'node:fs';
import { join, normalize } from 'node:path';
import type { JobT, RepoT } from '../../shared/api.ts';
import { isSafeName } from '../../shared/names.ts';
import { isOutdated } from '../../shared/version.ts';
import { AppError, errorMessage, notFound } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { JobContext, JobsService } from '../jobs/jobs.service.ts';
import { type LoadedTemplate, loadTemplate } from '../templates/load.ts';
import { type IndexedApp, indexRepo, type RepoIndex, readCacheVersion } from './app-index.ts';
import type { Git } from './git.ts';
import { checkGitUrl, gitOrigin, redactUrl, sameRepo } from './git-url.ts';
import type { RepoRecord, ReposRepo } from './repos.repo.ts';

export interface RepoInputT {
  /** The id the user chose; derived from `name` when absent. */
  id?: string | undefined;
  name: string;
  url: string;
  branch?: string | undefined;
  subdirectory?: string | undefined;
  token?: string | undefined;
  pinned_commit?: string | undefined;
}

/** A repo id the user gave: a safe name, refused (never rewritten) otherwise. */
function checkRepoId(id: string): string {
  if (!isSafeName(id)) {
    throw new AppError(
      'invalid_name',
      `repo id '${id}' is not a safe name: lower-case letters, digits, _ and -, starting with a letter or digit, at most 63 characters`,
      { params: { name: id }, fields: ['id'] },
    );
  }
  return id;
}

/** A relative folder inside the repo ('' is the root); refuses absolute paths and `..`. */
export function checkSubdirectory(raw: string | undefined): string {
  const s = (raw ?? '')
    .trim()
    .replace(/^\.\/?/, '')
    .replace(/\/+$/, '');
  if (s === '') return '';
  const n = normalize(s);
  if (s.startsWith('/') || n.startsWith('..') || n.split('/').includes('..') || /[\0\\]/.test(s)) {
    throw new AppError('validation', `subdirectory '${raw}' must be a folder inside the repository`, { fields: ['subdirectory'] });
  }
  return n;
}

function slugify(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 50);
  return s || 'repo';
}

export interface CatalogueDeps {
  repos: ReposRepo;
  git: Git;
  jobs: JobsService;
  events: EventBus;
  cacheDir: string;
  version: string;
  clock: () => Date;
}

/** What the use cases below share: the dependencies, one lock per repo cache, the app index per repo. */
interface Ctx extends CatalogueDeps {
  locks: Map<string, Promise<unknown>>;
  indexes: Map<string, { commit: string | null; index: RepoIndex }>;
}

/** Template repos, their git caches, and the app index read from the caches. */
export function createCatalogueService(deps: CatalogueDeps) {
  const c: Ctx = { ...deps, locks: new Map(), indexes: new Map() };
  return {
    list: (): RepoT[] => c.repos.list().map((r) => present(c, r)),
    /** Counts the writes to the repos (added, edited, synced, failed, removed): a status derived from list() holds while it stands still. */
    changes: (): number => c.repos.changes(),
    get: (id: string): RepoT => present(c, get(c, id)),
    add: (actor: Actor, input: RepoInputT): { repo: RepoT; job: JobT } => add(c, actor, input),
    edit: (actor: Actor, id: string, input: RepoInputT): { repo: RepoT; job: JobT } => edit(c, actor, id, input),
    remove: (actor: Actor, id: string): Promise<void> => remove(c, actor, id),
    sync: (actor: Actor | null, id: string): JobT => {
      get(c, id);
      return startSync(c, actor, id);
    },
    /** Syncs every repo in the background (AUTO_SYNC_ON_BOOT). */
    syncAll: (actor: Actor | null): JobT[] => c.repos.list().map((r) => startSync(c, actor, r.id)),
    apps: (): IndexedApp[] => c.repos.list().flatMap((r) => index(c, r).apps),
    /** The app as the index read it (an imported app's template is the importer's, never re-read as Kade's). */
    loadApp: (repoId: string, app: string): LoadedApp => loadApp(c, repoId, app),
  };
}

const cachePath = (c: Ctx, id: string) => join(c.cacheDir, id);
const appsDir = (c: Ctx, r: RepoRecord) => join(cachePath(c, r.id), r.subdirectory);

/** One git operation per repo cache at a time. */
function locked<T>(c: Ctx, id: string, fn: () => Promise<T>): Promise<T> {
  const prev = c.locks.get(id) ?? Promise.resolve();
  const next = prev.catch(() => undefined).then(fn);
  c.locks.set(id, next);
  void next.finally(() => c.locks.get(id) === next && c.locks.delete(id)).catch(() => undefined);
  return next;
}

function present(c: Ctx, r: RepoRecord): RepoT {
  const outdated = isOutdated(r.cacheVersion, c.version);
  return {
    id: r.id,
    name: r.name,
    url: redactUrl(r.url),
    branch: r.branch,
    subdirectory: r.subdirectory,
    has_token: r.token !== null && r.token !== '',
    pinned_commit: r.pinnedCommit,
    status: { commit: r.commit, commit_date: r.commitDate, synced_at: r.syncedAt, version: r.cacheVersion, outdated, error: r.lastError },
    outdated,
    skipped: index(c, r).skipped,
    import: index(c, r).report,
  };
}

function get(c: Ctx, id: string): RepoRecord {
  const r = c.repos.get(id);
  if (!r) throw notFound('repo', id);
  return r;
}

async function syncNow(c: Ctx, r: RepoRecord, ctx: JobContext | null): Promise<void> {
  const source = { url: r.url, branch: r.branch, token: r.token ?? undefined, pinnedCommit: r.pinnedCommit ?? undefined };
  const dir = cachePath(c, r.id);
  let commit: { sha: string; date: string };
  try {
    commit = await c.git.sync(source, dir);
  } catch (first) {
    // Any failure: discard the cache and fetch it whole once more.
    ctx?.log(`sync failed (${errorMessage(first)}); discarding the cache and fetching again`);
    rmSync(dir, { recursive: true, force: true });
    try {
      commit = await c.git.sync(source, dir);
    } catch (err) {
      c.repos.failed(r.id, errorMessage(err));
      throw err;
    }
  }
  c.repos.synced(r.id, c.clock().toISOString(), commit.sha, commit.date, readCacheVersion(dir));
  c.indexes.delete(r.id);
  const idx = index(c, get(c, r.id));
  ctx?.log(`${r.name}: commit ${commit.sha.slice(0, 12)}, ${idx.apps.length} apps${idx.skipped.length ? `, ${idx.skipped.length} could not be read` : ''}`);
  for (const e of idx.skipped) ctx?.log(`  ${e.app || '(apps folder)'}: ${e.reason}`);
}

function startSync(c: Ctx, actor: Actor | null, id: string): JobT {
  return c.jobs.start({ kind: 'repo.sync', stack: null, actor }, async (ctx) => {
    const r = get(c, id);
    if (r.token) ctx.mask(r.token);
    ctx.log(`fetching ${redactUrl(r.url)} (${r.branch})`);
    await locked(c, id, () => syncNow(c, get(c, id), ctx));
  });
}

function index(c: Ctx, r: RepoRecord): RepoIndex {
  const cached = c.indexes.get(r.id);
  if (cached && cached.commit === r.commit) return cached.index;
  const idx = r.commit
    ? indexRepo(r.id, appsDir(c, r), cachePath(c, r.id))
    : { apps: [], skipped: [], report: { format: 'kade' as const, found: 0, imported: 0, refused: [], notes: [], with_powers: 0 } };
  c.indexes.set(r.id, { commit: r.commit, index: idx });
  return idx;
}

/** The same repository, branch and folder added twice would only show every app twice: refused, naming the one there is. */
function refuseTwin(c: Ctx, v: { url: string; branch: string; subdirectory: string }, except?: string): void {
  const twin = c.repos.list().find((r) => r.id !== except && sameRepo(r.url, v.url) && r.branch === v.branch && r.subdirectory === v.subdirectory);
  if (!twin) return;
  throw new AppError('repo_exists', `this repository (branch '${v.branch}', folder '${v.subdirectory}') is added already as '${twin.name}' (${twin.id})`, {
    params: { id: twin.id, name: twin.name, branch: v.branch, subdirectory: v.subdirectory },
    fields: ['url'],
  });
}

function validated(input: RepoInputT) {
  checkGitUrl(input.url);
  return {
    name: input.name.trim(),
    url: input.url,
    branch: input.branch?.trim() || 'main',
    subdirectory: checkSubdirectory(input.subdirectory),
    pinnedCommit: input.pinned_commit ?? null,
  };
}

function add(c: Ctx, actor: Actor, input: RepoInputT): { repo: RepoT; job: JobT } {
  const chosen = input.id === undefined ? undefined : checkRepoId(input.id);
  const v = validated(input);
  if (chosen && c.repos.get(chosen)) {
    throw new AppError('name_taken', `a repo with id '${chosen}' exists already`, { params: { name: chosen }, fields: ['id'] });
  }
  refuseTwin(c, v);
  // Only an id derived from the name gets a numeric suffix; a chosen one is used as given.
  const base = slugify(v.name);
  let id = chosen ?? base;
  for (let n = 2; !chosen && c.repos.get(id); n++) id = `${base}-${n}`;
  c.repos.insert({ id, ...v, token: input.token || null, createdAt: c.clock().toISOString() });
  c.events.emit({ type: 'repo.added', actor, source: 'catalogue', target: id, status: 'ok' });
  return { repo: present(c, get(c, id)), job: startSync(c, actor, id) };
}

function edit(c: Ctx, actor: Actor, id: string, input: RepoInputT): { repo: RepoT; job: JobT } {
  const old = get(c, id);
  // Absent keeps what is stored; an empty subdirectory means the repo's root.
  const v = validated({
    ...input,
    url: input.url || old.url,
    branch: input.branch ?? old.branch,
    subdirectory: input.subdirectory ?? old.subdirectory,
  });
  refuseTwin(c, v, id);
  // An empty token keeps the stored one (the interface never receives it to send back), but only for the same
  // scheme, host and port: a token never follows the address to another server unless it is given again.
  const sameOrigin = gitOrigin(v.url) !== null && gitOrigin(v.url) === gitOrigin(old.url);
  c.repos.update({ id, ...v, token: input.token ? input.token : sameOrigin ? old.token : null });
  c.events.emit({ type: 'repo.edited', actor, source: 'catalogue', target: id, status: 'ok', detail: { action: 'edit' } });
  return { repo: present(c, get(c, id)), job: startSync(c, actor, id) };
}

async function remove(c: Ctx, actor: Actor, id: string): Promise<void> {
  get(c, id);
  await locked(c, id, async () => {
    c.repos.delete(id);
    c.indexes.delete(id);
    rmSync(cachePath(c, id), { recursive: true, force: true });
    c.events.emit({ type: 'repo.deleted', actor, source: 'catalogue', target: id, status: 'ok' });
  });
}

/** An app to install: its template, compose template and the other files its folder gets (an imported app's configs). */
export type LoadedApp = LoadedTemplate & { repo: RepoRecord; files: Record<string, string> };

function loadApp(c: Ctx, repoId: string, app: string): LoadedApp {
  const r = get(c, repoId);
  const found = index(c, r).apps.find((a) => a.app === app);
  if (!found) throw notFound('app', `${repoId}/${app}`);
  if (found.format === 'kade') return { ...loadTemplate(found.dir, app), repo: r, files: {} };
  return { template: found.template, compose: found.compose, dir: found.dir, repo: r, files: found.files };
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
