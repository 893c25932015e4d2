import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from '../core/errors.ts';
import { run } from '../core/exec.ts';
import type { Git, GitCommit, GitSource } from './git.ts';
import { checkBranch, gitConfigEnv, tooLarge, tooManyFiles, treeWithin, watchSize } from './git-limits.ts';
import { checkGitUrl, redactUrl } from './git-url.ts';

/** Options that make every git call safe whatever the user's config: no hooks, no exotic transports. */
const SAFE_CONFIG = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'protocol.allow=never',
  '-c',
  'protocol.https.allow=always',
  '-c',
  'protocol.http.allow=always',
  '-c',
  'protocol.ssh.allow=always',
  '-c',
  'core.symlinks=false',
  '-c',
  'submodule.recurse=false',
];

/** What a plain ("dumb") HTTP server answers to a shallow fetch; a full fetch works there. */
const DUMB_SHALLOW = /dumb http transport does not support shallow/i;

export interface GitCliOptions {
  /** Bound of one git call (a trickling or hanging server is cut off here). */
  timeoutMs?: number;
  /** Cap on the fetched objects and on the checked-out tree, in bytes. */
  maxBytes?: number;
  /** Cap on the number of files in the checked-out tree. */
  maxFiles?: number;
}

/** The bounds every git call of one adapter keeps. */
interface Limits {
  timeoutMs: number;
  maxBytes: number;
  maxFiles: number;
}

export function createGitCli(opts: GitCliOptions = {}): Git {
  const l: Limits = { timeoutMs: opts.timeoutMs ?? 120_000, maxBytes: opts.maxBytes ?? 256 * 1024 * 1024, maxFiles: opts.maxFiles ?? 20_000 };
  return { sync: (source, dir) => sync(l, source, dir) };
}

async function git(l: Limits, args: string[], env: NodeJS.ProcessEnv, cwd?: string, extra: { secret?: string; signal?: AbortSignal } = {}) {
  const res = await run('git', [...SAFE_CONFIG, ...args], {
    env,
    timeoutMs: l.timeoutMs,
    maxOutput: 64 * 1024,
    group: true,
    ...(cwd ? { cwd } : {}),
    ...(extra.signal ? { signal: extra.signal } : {}),
  });
  if (res.code !== 0 || res.timedOut || res.aborted) {
    let msg = (res.stderr || res.stdout).trim().split('\n').slice(-3).join(' ');
    if (extra.secret) msg = msg.split(extra.secret).join('***');
    const why = res.timedOut ? ` (timed out after ${Math.round(l.timeoutMs / 1000)} s)` : '';
    throw new AppError('git_failed', `git ${args[0]} failed${why}: ${msg}`, { params: { step: args[0] ?? '' } });
  }
  return res.stdout;
}

/** Fetches the branch, shallow when the server can; the fetched objects may not pass `maxBytes`. */
async function fetch(l: Limits, source: GitSource, env: NodeJS.ProcessEnv, work: string): Promise<void> {
  const ref = `refs/heads/${source.branch}`;
  const base = ['fetch', '--quiet', '--no-tags', '--no-recurse-submodules'];
  const once = async (depth: string[]) => {
    const watch = watchSize(join(work, '.git'), l.maxBytes);
    try {
      await git(l, [...base, ...depth, 'origin', '--', ref], env, work, { ...(source.token ? { secret: source.token } : {}), signal: watch.signal });
    } catch (err) {
      if (watch.signal.aborted) throw tooLarge('the fetched objects', l.maxBytes);
      throw err;
    } finally {
      watch.stop();
    }
  };
  if (source.pinnedCommit) return once([]);
  try {
    await once(['--depth', '1']);
  } catch (err) {
    if (!(err instanceof AppError) || !DUMB_SHALLOW.test(err.message)) throw err;
    await once([]);
  }
}

async function checkTree(l: Limits, env: NodeJS.ProcessEnv, work: string, target: string): Promise<void> {
  const res = await run('git', [...SAFE_CONFIG, 'ls-tree', '-r', '-l', '-z', target, '--'], { env, cwd: work, timeoutMs: l.timeoutMs, maxOutput: 8 << 20 });
  if (res.code !== 0) throw new AppError('git_failed', `git ls-tree failed: ${res.stderr.trim().slice(-300)}`, { params: { step: 'ls-tree' } });
  const verdict = treeWithin(res.stdout, { maxBytes: l.maxBytes, maxFiles: l.maxFiles });
  if (verdict === 'files') throw tooManyFiles(l.maxFiles);
  if (verdict === 'bytes') throw tooLarge('its files', l.maxBytes);
}

async function sync(l: Limits, source: GitSource, dir: string): Promise<GitCommit> {
  const kind = checkGitUrl(source.url);
  checkBranch(source.branch);
  const env = gitConfigEnv(source.url, kind, source.token);
  const url = source.url;
  const fresh = !existsSync(`${dir}/.git`);
  // A first clone is built beside the cache and renamed into place, so a failure leaves nothing behind.
  const work = fresh ? `${dir}.partial-${randomBytes(4).toString('hex')}` : dir;
  try {
    if (fresh) {
      mkdirSync(dirname(dir), { recursive: true });
      await git(l, ['init', '--quiet', '--', work], env);
      await git(l, ['remote', 'add', 'origin', '--', url], env, work);
    } else {
      await git(l, ['remote', 'set-url', 'origin', '--', url], env, work);
    }
    const commit = await checkoutFetched(l, source, env, work);
    if (fresh) {
      rmSync(dir, { recursive: true, force: true });
      renameSync(work, dir);
    }
    return commit;
  } catch (err) {
    if (fresh) rmSync(work, { recursive: true, force: true });
    if (err instanceof AppError) throw new AppError(err.code, err.message.replace(url, redactUrl(url)), { params: err.params, cause: err });
    throw err;
  }
}

/** Fetches, checks the tree against the caps, and makes the work tree that commit exactly. */
async function checkoutFetched(l: Limits, source: GitSource, env: NodeJS.ProcessEnv, work: string): Promise<GitCommit> {
  await fetch(l, source, env, work);
  const target = source.pinnedCommit ?? 'FETCH_HEAD';
  await checkTree(l, env, work, target);
  await git(l, ['reset', '--quiet', '--hard', target, '--'], env, work);
  await git(l, ['clean', '-qfdx'], env, work);
  const out = await git(l, ['log', '-1', '--format=%H %cI', target, '--'], env, work);
  const [sha = '', date = ''] = out.trim().split(' ');
  return { sha, date };
}
