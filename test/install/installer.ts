import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The installer of this work tree. */
export const INSTALLER = resolve('install.sh');

/** Every installer test runs under both shells the installer promises to work with. */
export const SHELLS: readonly { name: string; argv: readonly string[] }[] = [
  { name: 'dash', argv: ['dash'] },
  { name: 'busybox sh', argv: ['busybox', 'sh'] },
];

export interface InstallerRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, for messages that may go to either. */
  output: string;
}

/**
 * Runs install.sh under `shell` in its own session, so it has no controlling terminal (as under
 * CI or `curl | sh` without one): questions need --yes there.
 */
export function runInstaller(
  shell: { argv: readonly string[] },
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<InstallerRun> {
  const [cmd, ...pre] = shell.argv;
  if (cmd === undefined) throw new Error('empty shell');
  const child = spawn(cmd, [...pre, INSTALLER, ...args], {
    env: opts.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    output += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    output += d;
  });
  const timer = setTimeout(() => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, opts.timeoutMs ?? 240_000);
  return new Promise((resolveRun, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr, output });
    });
  });
}

const BIN_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/**
 * A PATH of one folder with links to every program of the usual folders except `without`: a
 * system where those programs are not installed. Returns the folder (remove it afterwards).
 */
export async function pathWithout(without: readonly string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kadetest-path-'));
  const seen = new Set<string>(without);
  for (const bin of BIN_DIRS) {
    let entries: string[];
    try {
      entries = await readdir(bin);
    } catch {
      continue;
    }
    for (const name of entries) {
      if (seen.has(name)) continue;
      seen.add(name);
      await symlink(join(bin, name), join(dir, name));
    }
  }
  return dir;
}

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** A fresh temp folder under the system's temp dir. */
export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `kadetest-install-${prefix}-`));
}

export async function removeAll(...dirs: (string | undefined)[]): Promise<void> {
  for (const dir of dirs) if (dir) await rm(dir, { recursive: true, force: true });
}

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * Runs the installer as `curl … | sh` does: the script arrives on the shell's standard input, and a
 * terminal (a pty from util-linux `script`) is there for the questions; `answers` is typed into it.
 */
export function runPiped(shell: { argv: readonly string[] }, args: string[], answers: string, env: NodeJS.ProcessEnv): InstallerRun {
  const inner = `cat ${quote(INSTALLER)} | ${shell.argv.map(quote).join(' ')} -s -- ${args.map(quote).join(' ')}`;
  const r = spawnSync('script', ['-qec', inner, '/dev/null'], { input: answers, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, output: `${r.stdout}${r.stderr}` };
}
