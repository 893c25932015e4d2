import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../core/errors.ts';
import type { GitUrlKind } from './git-url.ts';

/**
 * A branch name git accepts and no option parser mistakes for a flag: no leading dash, no `..`,
 * no `@{`, spaces or control characters, no component starting with a dot, no `.lock` ending.
 */
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*(?:^|\/)\.)(?!.*\.lock(?:\/|$))(?!.*[/.]$)[A-Za-z0-9._/-]{1,255}$/;

export function checkBranch(branch: string): void {
  if (!BRANCH.test(branch)) {
    throw new AppError('validation', `branch '${branch}' is not a valid branch name (letters, digits, . _ / -; no leading dash, no '..')`, {
      fields: ['branch'],
    });
  }
}

/**
 * The environment of every git call: no user or system config, no prompts, http(s) and ssh only,
 * redirects only on the first request, a transfer that stalls below 1 kB/s for 30 s is cut off.
 * A token is offered only to the repo's own scheme, host and port, through a credential helper
 * that git asks after that server's 401; a redirect target on any other origin never receives it.
 */
export function gitConfigEnv(url: string, kind: GitUrlKind, token: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ALLOW_PROTOCOL: 'http:https:ssh',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o StrictHostKeyChecking=accept-new',
  };
  const config: [string, string][] = [
    ['credential.helper', ''],
    ['http.followRedirects', 'initial'],
    ['http.lowSpeedLimit', '1000'],
    ['http.lowSpeedTime', '30'],
    ['fetch.fsckObjects', 'true'],
  ];
  if (token && kind === 'http') {
    if ([...token].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) {
      throw new AppError('validation', 'the token must not contain line breaks or control characters', { fields: ['token'] });
    }
    // The token lives in the environment only (never argv, a URL, a file or a log); the helper is static text.
    env.KADE_GIT_TOKEN = token;
    const helper = '!f() { test "$1" = get || exit 0; echo username=x-access-token; printf "password=%s\\n" "$KADE_GIT_TOKEN"; }; f';
    config.push([`credential.${new URL(url).origin}/.helper`, helper]);
  }
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** Total size of the files below `dir` (links not followed); entries that vanish mid-walk count as 0. */
export function dirBytes(dir: string): number {
  let total = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += dirBytes(p);
    else {
      try {
        total += lstatSync(p).size;
      } catch {
        // Removed while we looked (git renames temp packs).
      }
    }
  }
  return total;
}

/** Aborts its signal once the files below `dir` pass `maxBytes`; checked every 200 ms. */
export function watchSize(dir: string, maxBytes: number): { signal: AbortSignal; stop: () => void } {
  const ctl = new AbortController();
  const timer = setInterval(() => {
    if (dirBytes(dir) > maxBytes) {
      ctl.abort();
      clearInterval(timer);
    }
  }, 200);
  return { signal: ctl.signal, stop: () => clearInterval(timer) };
}

/** Reads `git ls-tree -r -l -z` output: whether the tree stays within the file count and byte caps. */
export function treeWithin(lsTree: string, caps: { maxBytes: number; maxFiles: number }): 'ok' | 'files' | 'bytes' {
  let files = 0;
  let bytes = 0;
  for (const entry of lsTree.split('\0')) {
    const meta = entry.slice(0, entry.indexOf('\t')).trim().split(/\s+/);
    if (meta[1] !== 'blob') continue;
    files++;
    bytes += Number.parseInt(meta[3] ?? '0', 10) || 0;
    if (files > caps.maxFiles) return 'files';
    if (bytes > caps.maxBytes) return 'bytes';
  }
  return 'ok';
}

/** A repository past the byte cap: `what` (the fetched objects, its files) passes it. */
export function tooLarge(what: string, maxBytes: number): AppError {
  const mb = Math.round(maxBytes / (1024 * 1024));
  return new AppError('git_failed', `the repository is too large: ${what} pass the limit of ${mb} MB`, { params: { step: 'fetch', limit: mb } });
}

/** A repository past the file cap. */
export const tooManyFiles = (maxFiles: number): AppError =>
  new AppError('git_failed', `the repository holds more than ${maxFiles} files`, { params: { step: 'checkout', limit: maxFiles } });
