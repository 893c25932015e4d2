import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { promisify } from 'node:util';

// A real restart of the CI machine's dockerd (started by .ci/run with nohup, not under systemd): the running
// daemon's argument list and environment are read from /proc, it gets SIGTERM, and it is started again the same way,
// detached, with its output appended to a log file and no file descriptor of the test process (the engine lock's
// flock descriptor above all) inherited. Only for tests that hold the engine lock.

const execFileP = promisify(execFile);
export const DOCKERD_LOG = '/var/log/kade-ci-dockerd.log';

export interface DockerdProcess {
  pid: number;
  argv: string[];
  env: Record<string, string>;
}

const nulSplit = (b: Buffer) =>
  b
    .toString('utf8')
    .split('\0')
    .filter((s) => s !== '');

/** The running dockerd: its pid, argument list and environment. */
export function findDockerd(): DockerdProcess {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'dockerd') continue;
      const argv = nulSplit(readFileSync(`/proc/${entry}/cmdline`));
      const env = Object.fromEntries(
        nulSplit(readFileSync(`/proc/${entry}/environ`)).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      );
      if (argv.length > 0) return { pid: Number(entry), argv, env };
    } catch {
      // The process ended while being read: not the one.
    }
  }
  throw new Error('no dockerd process runs on this machine');
}

export async function engineAnswers(): Promise<boolean> {
  try {
    await execFileP('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** SIGTERM to the daemon; waits until the process is gone (it stops its containers first), SIGKILL after 90 s. */
export async function stopDockerd(d: DockerdProcess): Promise<void> {
  process.kill(d.pid, 'SIGTERM');
  try {
    await until('dockerd to exit', () => !existsSync(`/proc/${d.pid}`), 90_000);
  } catch {
    process.kill(d.pid, 'SIGKILL');
    await until('dockerd to exit after SIGKILL', () => !existsSync(`/proc/${d.pid}`), 20_000);
  }
  await until('the engine to stop answering', async () => !(await engineAnswers()), 20_000);
}

// Closes every descriptor above 2 the shell got (the engine lock's above all), then becomes the daemon. Bash: dash
// takes only one-digit descriptors in a redirection.
const CLOSE_FDS = 'for f in /proc/$$/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done; exec "$@"';

/** Starts dockerd again with the argument list and environment it had, detached; waits until it answers. */
export async function startDockerd(d: Pick<DockerdProcess, 'argv' | 'env'>): Promise<DockerdProcess> {
  const log = openSync(DOCKERD_LOG, 'a');
  try {
    const child = spawn('/bin/bash', ['-c', CLOSE_FDS, 'bash', ...d.argv], { detached: true, stdio: ['ignore', log, log], env: d.env });
    child.unref();
  } finally {
    closeSync(log);
  }
  await until('the engine to answer again (docker info)', engineAnswers, 120_000);
  return findDockerd();
}

/** Whether a process holds a descriptor open on `path` (the new daemon must not hold the engine lock). */
export function holdsFile(pid: number, path: string): boolean {
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === path) return true;
    } catch {
      // Closed while listed.
    }
  }
  return false;
}

/** The engine's default address pools as `docker info` gives them (JSON). */
export async function addressPools(): Promise<string> {
  return (await execFileP('docker', ['info', '--format', '{{json .DefaultAddressPools}}'], { timeout: 10_000 })).stdout.trim();
}
