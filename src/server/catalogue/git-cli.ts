import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppError } from '../core/errors.ts';
import { run } from '../core/exec.ts';
import type { Git, GitCommit, GitSource } from './git.ts';
import { checkGitUrl, redactUrl } from './git-url.ts';

const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,255}$/;

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
  '-c',
  'credential.helper=',
];

function gitEnv(token: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ALLOW_PROTOCOL: 'http:https:ssh',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o StrictHostKeyChecking=accept-new',
  };
  if (token) {
    // The token travels in the environment as an extra header, so it is never in argv, a URL or a log.
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    env.GIT_CONFIG_COUNT = '1';
    env.GIT_CONFIG_KEY_0 = 'http.extraHeader';
    env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${basic}`;
  }
  return env;
}

export function createGitCli(opts: { timeoutMs?: number } = {}): Git {
  const timeoutMs = opts.timeoutMs ?? 120_000;

  async function git(args: string[], env: NodeJS.ProcessEnv, cwd?: string, secret?: string): Promise<string> {
    const res = await run('git', [...SAFE_CONFIG, ...args], { env, timeoutMs, maxOutput: 64 * 1024, ...(cwd ? { cwd } : {}) });
    if (res.code !== 0 || res.timedOut) {
      let msg = (res.stderr || res.stdout).trim().split('\n').slice(-3).join(' ');
      if (secret) msg = msg.split(secret).join('***');
      throw new AppError('git_failed', `git ${args[0]} failed${res.timedOut ? ' (timed out)' : ''}: ${msg}`, { params: { step: args[0] ?? '' } });
    }
    return res.stdout;
  }

  return {
    async sync(source: GitSource, dir: string): Promise<GitCommit> {
      checkGitUrl(source.url);
      if (!BRANCH.test(source.branch)) {
        throw new AppError('validation', `branch '${source.branch}' is not a valid branch name`, { fields: ['branch'] });
      }
      const env = gitEnv(source.token);
      const url = source.url;
      const secret = source.token;
      try {
        if (!existsSync(`${dir}/.git`)) {
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dirname(dir), { recursive: true });
          await git(['init', '--quiet', '--', dir], env);
          await git(['remote', 'add', 'origin', '--', url], env, dir);
        } else {
          await git(['remote', 'set-url', 'origin', '--', url], env, dir);
        }
        const depth = source.pinnedCommit ? [] : ['--depth', '1'];
        await git(['fetch', '--quiet', '--no-tags', '--no-recurse-submodules', ...depth, 'origin', '--', `refs/heads/${source.branch}`], env, dir, secret);
        const target = source.pinnedCommit ?? 'FETCH_HEAD';
        await git(['reset', '--quiet', '--hard', target, '--'], env, dir);
        await git(['clean', '-qfdx'], env, dir);
        const out = await git(['log', '-1', '--format=%H %cI', target, '--'], env, dir);
        const [sha = '', date = ''] = out.trim().split(' ');
        return { sha, date };
      } catch (err) {
        if (err instanceof AppError) throw new AppError(err.code, err.message.replace(url, redactUrl(url)), { params: err.params, cause: err });
        throw err;
      }
    },
  };
}
