import { execFile, spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { promisify } from 'node:util';
import type { GitRemote } from '../../src/server/catalogue/fake-git.ts';

const execFileP = promisify(execFile);

export interface GitServerOptions {
  /** When set, every request needs `Authorization: Basic base64("x-access-token:" + token)`. */
  token?: string;
  /**
   * Serve the bare repos as plain files (the "dumb" HTTP protocol, as any static web server would)
   * instead of through `git http-backend`.
   */
  dumb?: boolean;
  /**
   * Sees every request first; returns true when it answered it itself (redirects, stalls).
   * `authorized` tells whether the request carried the expected token (always true without one).
   */
  intercept?: (req: IncomingMessage, res: ServerResponse, authorized: boolean) => boolean;
  /** The port on 127.0.0.1; an ephemeral one when absent (`npm run examples:serve` asks for a fixed one). */
  port?: number;
}

/** The real one of the contract's servers (git.contract.ts), as the fake git's `serve()` gives them. */
export type GitServer = GitRemote;

const AUTHOR_ENV = {
  GIT_AUTHOR_NAME: 'Kade Test',
  GIT_AUTHOR_EMAIL: 'test@kade.invalid',
  GIT_COMMITTER_NAME: 'Kade Test',
  GIT_COMMITTER_EMAIL: 'test@kade.invalid',
};

interface RepoState {
  work: string;
  bare: string;
  branch: string;
}

/** Starts a smart-HTTP git server on 127.0.0.1 (ephemeral port) backed by `git http-backend`. */
export async function startGitServer(opts: GitServerOptions = {}): Promise<GitServer> {
  const base = await mkdtemp(join(tmpdir(), 'kade-git-'));
  const root = join(base, 'repos');
  await mkdir(root);
  await mkdir(join(base, 'work'));
  const home = join(base, 'home');
  await mkdir(home);
  // Keep the caller's git config (signing, hooks, helpers) out of fixture commits.
  const gitEnv = { ...process.env, ...AUTHOR_ENV, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  const git = async (cwd: string, args: string[]): Promise<string> => {
    const { stdout } = await execFileP('git', args, { cwd, env: gitEnv, timeout: 30_000, maxBuffer: 8 << 20 });
    return stdout.trim();
  };

  const repos = new Map<string, RepoState>();
  let served = 0;
  const expectedAuth = opts.token === undefined ? undefined : `Basic ${Buffer.from(`x-access-token:${opts.token}`).toString('base64')}`;

  const server = createServer((req, res) => {
    served++;
    const authorized = expectedAuth === undefined || req.headers.authorization === expectedAuth;
    if (opts.intercept?.(req, res, authorized)) return;
    if (!authorized) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="kade-test"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    if (opts.dumb) serveFile(req, res, root);
    else serveCgi(req, res, root, gitEnv);
  });
  const port = await listen(server, opts.port ?? 0).catch(async (err: unknown) => {
    await rm(base, { recursive: true, force: true });
    throw err;
  });

  const stateOf = (name: string): RepoState => {
    const state = repos.get(name);
    if (!state) throw new Error(`git-server: no repo named ${name}`);
    return state;
  };

  const commitAndPush = async (state: RepoState, message: string): Promise<string> => {
    await git(state.work, ['add', '-A']);
    await git(state.work, ['commit', '--allow-empty', '--no-gpg-sign', '--quiet', '-m', message]);
    await git(state.work, ['push', '--quiet', '--force', state.bare, `HEAD:refs/heads/${state.branch}`]);
    // The files a dumb client reads first (info/refs, objects/info/packs).
    if (opts.dumb) await git(state.bare, ['update-server-info']);
    return git(state.work, ['rev-parse', 'HEAD']);
  };

  return {
    url: (repo) => `http://127.0.0.1:${port}/${repo}.git`,
    requests: () => served,
    async addRepo(name, fromDir, addOpts = {}) {
      if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) throw new Error(`git-server: bad repo name ${name}`);
      if (repos.has(name)) throw new Error(`git-server: repo ${name} exists`);
      const state = { work: join(base, 'work', name), bare: join(root, `${name}.git`), branch: addOpts.branch ?? 'main' };
      await cp(fromDir, state.work, { recursive: true });
      await git(state.work, ['init', '--quiet', `--initial-branch=${state.branch}`]);
      await git(base, ['init', '--quiet', '--bare', `--initial-branch=${state.branch}`, '--', state.bare]);
      // Lets clients fetch a pinned commit or use partial clones.
      await git(state.bare, ['config', 'uploadpack.allowReachableSHA1InWant', 'true']);
      await git(state.bare, ['config', 'uploadpack.allowFilter', 'true']);
      repos.set(name, state);
      await commitAndPush(state, `Add ${name}`);
    },
    async commit(name, fromDir, message = 'Update') {
      const state = stateOf(name);
      for (const entry of await readdir(state.work)) {
        if (entry !== '.git') await rm(join(state.work, entry), { recursive: true, force: true });
      }
      await cp(fromDir, state.work, { recursive: true });
      return commitAndPush(state, message);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(base, { recursive: true, force: true });
    },
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** A plain static file server over the repos folder: what a dumb git client gets from any web server. */
function serveFile(req: IncomingMessage, res: ServerResponse, root: string): void {
  let rel: string;
  try {
    rel = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname));
  } catch {
    res.writeHead(400).end();
    return;
  }
  if (req.method !== 'GET' || rel.split('/').includes('..')) {
    res.writeHead(req.method === 'GET' ? 400 : 405).end();
    return;
  }
  const file = join(root, rel);
  stat(file).then(
    (st) => {
      if (!st.isFile()) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': st.size });
      createReadStream(file).pipe(res);
    },
    () => res.writeHead(404).end(),
  );
}

/** Runs `git http-backend` as a CGI program for one request. */
function serveCgi(req: IncomingMessage, res: ServerResponse, root: string, gitEnv: NodeJS.ProcessEnv): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  let pathInfo: string;
  try {
    pathInfo = decodeURIComponent(url.pathname);
  } catch {
    res.writeHead(400).end();
    return;
  }
  const env: NodeJS.ProcessEnv = {
    ...gitEnv,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
    PATH_INFO: pathInfo,
    QUERY_STRING: url.search.slice(1),
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
  };
  if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = req.headers['content-length'];
  for (const [key, value] of Object.entries(req.headers)) {
    if (key === 'authorization' || value === undefined) continue;
    // HTTP_GIT_PROTOCOL (protocol v2) and HTTP_CONTENT_ENCODING (gzip bodies) matter to http-backend.
    env[`HTTP_${key.toUpperCase().replaceAll('-', '_')}`] = Array.isArray(value) ? value.join(', ') : value;
  }
  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  child.on('error', (err) => fail(res, `cannot run git http-backend: ${err.message}`));
  child.stdin.on('error', () => undefined); // the backend may answer before reading the whole body
  req.pipe(child.stdin);
  res.on('close', () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const split = findHeaderEnd(head);
    if (!split) return;
    writeCgiHead(res, head.subarray(0, split.start).toString('latin1'));
    headersSent = true;
    res.write(head.subarray(split.end));
  });
  child.on('close', (code) => {
    if (!headersSent) fail(res, `git http-backend exited ${code}: ${stderr}`);
    else res.end();
  });
}

function findHeaderEnd(buf: Buffer): { start: number; end: number } | undefined {
  const crlf = buf.indexOf('\r\n\r\n');
  const lf = buf.indexOf('\n\n');
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { start: crlf, end: crlf + 4 };
  if (lf !== -1) return { start: lf, end: lf + 2 };
  return undefined;
}

function writeCgiHead(res: ServerResponse, text: string): void {
  let status = 200;
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else res.appendHeader(name, value);
  }
  res.writeHead(status);
}

function fail(res: ServerResponse, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(500, { 'Content-Type': 'text/plain' });
  res.end(`${message}\n`);
}
