/**
 * An in-memory git for unit tests: servers of repos (branches of commits, each a tree of files) that `sync` copies into
 * a folder on disk as git-cli.ts does: the same URL, branch and token rules (the same functions), a first clone built
 * beside the cache and renamed into place, a later sync a hard reset with stray files removed, links written as plain
 * files, the caps on files and bytes, `.git/config` naming the origin. `git.contract.ts` runs the same cases on it and on
 * the CLI over real git on loopback; where they disagree the real one is right. Switches: `failOn` fails the nth sync
 * before it acts, `hold` keeps syncs waiting until released; `calls` records every sync.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { AppError } from '../core/errors.ts';
import { createSwitches, type FaultOptions } from '../engine/fake-switches.ts';
import type { Git, GitCommit, GitSource } from './git.ts';
import { checkBranch, gitConfigEnv, tooLarge, tooManyFiles } from './git-limits.ts';
import { checkGitUrl, redactUrl } from './git-url.ts';

/** A git server the contract's cases push to; test/helpers/git-server.ts is the real one (smart HTTP on loopback). */
export interface GitRemote {
  /** The clone URL of a repo added with addRepo. */
  url(repo: string): string;
  /** Creates repo `name` whose first commit holds a copy of `fromDir`. */
  addRepo(name: string, fromDir: string, opts?: { branch?: string }): Promise<void>;
  /** Replaces the repo's tree with a copy of `fromDir` and commits it; returns the new sha. */
  commit(name: string, fromDir: string, message?: string): Promise<string>;
  /** Requests that reached the server so far. */
  requests(): number;
  close(): Promise<void>;
}

interface FakeCommit {
  sha: string;
  date: string;
  files: Map<string, Buffer>;
}

interface FakeRepo {
  branch: string;
  /** Oldest first; the last is the branch head. */
  commits: FakeCommit[];
}

export interface FakeGit extends Git {
  /** A server of this fake world, its URLs on a host of its own; with `token`, a sync needs exactly that token. */
  serve(opts?: { token?: string }): GitRemote;
  /** A git of the same world with other caps (the CLI's `maxBytes`, `maxFiles`). */
  limited(caps: { maxBytes?: number; maxFiles?: number }): Git;
  calls: GitSource[];
  /** Fails the `nth` sync from now (default the next) before it acts, `times` in a row (default 1), with `error` (git_failed by default). */
  failOn(opts?: FaultOptions): () => void;
  /** Syncs from now on wait before they act until the returned function is called. */
  hold(): () => void;
}

/** The files below `dir` as git would commit them: links as their target text, folders not at all, `.git` left out. */
function snapshot(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.name === '.git') continue;
      if (e.isSymbolicLink()) files.set(relative(dir, p), Buffer.from(readlinkSync(p)));
      else if (e.isDirectory()) walk(p);
      else files.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return files;
}

const gitFailed = (step: string, words: string) => new AppError('git_failed', `git ${step} failed: ${words}`, { params: { step } });

type FakeServer = { token: string | undefined; repos: Map<string, FakeRepo>; served: number };

/** The fake's world: its servers by host, every sync, the switches and the clock of its commits. */
interface World {
  servers: Map<string, FakeServer>;
  calls: GitSource[];
  switches: ReturnType<typeof createSwitches<'sync'>>;
  clock: number;
}

export function createFakeGit(caps: { maxBytes?: number; maxFiles?: number } = {}): FakeGit {
  const w: World = { servers: new Map(), calls: [], switches: createSwitches<'sync'>(), clock: 0 };
  return {
    ...gitOf(w, caps),
    limited: (c) => gitOf(w, c),
    calls: w.calls,
    serve: (opts = {}) => serve(w, opts),
    failOn: (o = {}) => w.switches.failOn('sync', { times: 1, ...o }),
    hold: () => w.switches.hold('sync'),
  };
}

function commitOf(w: World, repo: FakeRepo, files: Map<string, Buffer>, message: string): FakeCommit {
  w.clock += 1;
  const parent = repo.commits.at(-1)?.sha ?? '';
  const hash = createHash('sha1').update(`${parent}\0${message}\0${w.clock}`);
  for (const [path, body] of [...files].sort(([a], [b]) => a.localeCompare(b))) hash.update(`${path}\0`).update(body);
  const date = new Date(Date.UTC(2026, 0, 1) + w.clock * 60_000).toISOString().replace('.000Z', '+00:00');
  return { sha: hash.digest('hex'), date, files };
}

/** The commit `source` names on its server, or the refusal the CLI gives. */
function resolve(w: World, source: GitSource): FakeCommit {
  const u = new URL(source.url);
  const server = w.servers.get(u.host);
  if (!server) throw gitFailed('fetch', `fatal: unable to access '${redactUrl(source.url)}/': Could not resolve host: ${u.hostname}`);
  server.served += 1;
  if (server.token !== undefined && source.token !== server.token) {
    throw gitFailed('fetch', `fatal: Authentication failed for '${redactUrl(source.url)}/'`);
  }
  const repo = server.repos.get(u.pathname.replace(/^\//, '').replace(/\.git$/, ''));
  if (!repo) throw gitFailed('fetch', `fatal: repository '${redactUrl(source.url)}/' not found`);
  if (source.branch !== repo.branch) throw gitFailed('fetch', `fatal: couldn't find remote ref refs/heads/${source.branch}`);
  const commit = source.pinnedCommit ? repo.commits.find((c) => c.sha === source.pinnedCommit) : repo.commits.at(-1);
  if (!commit) throw gitFailed('ls-tree', `fatal: not a tree object: ${source.pinnedCommit}`);
  return commit;
}

function checkCaps(commit: FakeCommit, maxBytes: number, maxFiles: number): void {
  if (commit.files.size > maxFiles) throw tooManyFiles(maxFiles);
  if ([...commit.files.values()].reduce((n, b) => n + b.length, 0) > maxBytes) throw tooLarge('its files', maxBytes);
}

function checkout(commit: FakeCommit, url: string, work: string): void {
  for (const e of readdirSync(work)) if (e !== '.git') rmSync(join(work, e), { recursive: true, force: true });
  mkdirSync(join(work, '.git'), { recursive: true });
  writeFileSync(join(work, '.git', 'config'), `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`);
  for (const [path, body] of commit.files) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), body);
  }
}

async function enter(w: World, source: GitSource): Promise<void> {
  w.calls.push({ ...source });
  await w.switches.passed('sync');
  const fault = w.switches.fault('sync');
  if (fault) throw fault.error ?? gitFailed('fetch', 'fake failure');
}

/** A git of the world with these caps. */
function gitOf(w: World, c: { maxBytes?: number; maxFiles?: number }): Git {
  const maxBytes = c.maxBytes ?? 256 * 1024 * 1024;
  const maxFiles = c.maxFiles ?? 20_000;
  return { sync: (source, dir) => sync(w, { maxBytes, maxFiles }, source, dir) };
}

/** A first sync built beside the cache and renamed into place; a later one checked out over it. */
async function sync(w: World, caps: { maxBytes: number; maxFiles: number }, source: GitSource, dir: string): Promise<GitCommit> {
  await enter(w, source);
  const kind = checkGitUrl(source.url);
  checkBranch(source.branch);
  gitConfigEnv(source.url, kind, source.token);
  const fresh = !existsSync(join(dir, '.git'));
  const work = fresh ? `${dir}.partial-${randomBytes(4).toString('hex')}` : dir;
  try {
    if (fresh) mkdirSync(work, { recursive: true });
    const commit = resolve(w, source);
    checkCaps(commit, caps.maxBytes, caps.maxFiles);
    checkout(commit, source.url, work);
    if (fresh) {
      rmSync(dir, { recursive: true, force: true });
      renameSync(work, dir);
    }
    return { sha: commit.sha, date: commit.date };
  } catch (err) {
    if (fresh) rmSync(work, { recursive: true, force: true });
    throw err;
  }
}

/** A server of the world on a host of its own. */
function serve(w: World, opts: { token?: string }): GitRemote {
  const host = `git-${w.servers.size + 1}.fake.invalid`;
  const server: FakeServer = { token: opts.token, repos: new Map<string, FakeRepo>(), served: 0 };
  w.servers.set(host, server);
  const repoOf = (name: string) => {
    const repo = server.repos.get(name);
    if (!repo) throw new Error(`fake git: no repo named ${name}`);
    return repo;
  };
  return {
    url: (repo) => `http://${host}/${repo}.git`,
    requests: () => server.served,
    async addRepo(name, fromDir, o = {}) {
      if (server.repos.has(name)) throw new Error(`fake git: repo ${name} exists`);
      const repo: FakeRepo = { branch: o.branch ?? 'main', commits: [] };
      repo.commits.push(commitOf(w, repo, snapshot(fromDir), `Add ${name}`));
      server.repos.set(name, repo);
    },
    async commit(name, fromDir, message = 'Update') {
      const repo = repoOf(name);
      const c = commitOf(w, repo, snapshot(fromDir), message);
      repo.commits.push(c);
      return c.sha;
    },
    async close() {
      w.servers.delete(host);
    },
  };
}
