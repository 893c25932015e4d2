import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve as resolvePath } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { childEnded, childStarted, hasPdeathsig } from './children.ts';
import { AppError } from './errors.ts';

export interface ExecOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Output beyond this many bytes per stream is dropped (the tail is kept). */
  maxOutput?: number;
  input?: string;
  /** Called with each chunk of combined output as it arrives (job logs). */
  onOutput?: (chunk: string) => void;
  /** Aborting kills the program (and with `group`, everything it started). */
  signal?: AbortSignal;
  /**
   * Every program now runs in its own process group, and a timeout or abort kills the whole group, so
   * helpers it started (git's remote-http) cannot keep the output open and outlive the bound. Kept for
   * callers that rely on it.
   */
  group?: boolean;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Killed because `signal` was aborted. */
  aborted: boolean;
}

const keepTail = (s: string, max: number) => (s.length > max ? s.slice(s.length - max) : s);

/** Whether `file` names an executable the way spawn would find it (the PATH of the environment the child gets). */
function findable(file: string, env: NodeJS.ProcessEnv, cwd: string | undefined): boolean {
  const isExec = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (file.includes('/')) return isExec(isAbsolute(file) ? file : resolvePath(cwd ?? process.cwd(), file));
  return (env.PATH ?? '/usr/bin:/bin').split(delimiter).some((d) => d !== '' && isExec(join(d, file)));
}

/**
 * The program and arguments to spawn: under `setpriv --pdeathsig KILL` (the child dies with Kade, children.ts)
 * when setpriv can do that and the program exists; a missing program is spawned as is, so it fails as it
 * always did (the 'cannot run' error) rather than as setpriv's exit code.
 */
function wrapped(file: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string | undefined): [string, readonly string[]] {
  if (!hasPdeathsig() || !findable(file, env, cwd)) return [file, args];
  return ['setpriv', ['--pdeathsig', 'KILL', '--', file, ...args]];
}

/** Spawns `file` in a process group of its own under the parent-death signal, recorded until it exits (children.ts). */
function startChild(
  file: string,
  args: readonly string[],
  opts: { cwd?: string | undefined; env?: NodeJS.ProcessEnv | undefined },
  stdin: 'pipe' | 'ignore',
): ChildProcess {
  const env = opts.env ?? process.env;
  const [prog, argv] = wrapped(file, args, env, opts.cwd);
  const child = spawn(prog, argv, { cwd: opts.cwd, env, stdio: [stdin, 'pipe', 'pipe'], detached: true });
  const pid = child.pid;
  if (pid !== undefined) {
    childStarted(pid, [file, ...args]);
    child.once('exit', () => childEnded(pid));
  }
  return child;
}

/** Kills the child's whole process group (helpers it started included), or the child alone when the group is gone. */
function killGroup(child: ChildProcess): void {
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGKILL');
      return;
    } catch {
      // The group is gone already; fall through to the child itself.
    }
  }
  child.kill('SIGKILL');
}

/** A program whose input and output are streams (data of any size, read with backpressure). */
export interface PipedChild {
  /** Null when started with `stdin: 'ignore'`. */
  stdin: Writable | null;
  stdout: Readable;
  /**
   * Settles when the program ended and its output streams closed: its exit code (null when a signal ended it) and
   * the first 4 KiB of its stderr. Rejects only when it could not be started (the spawn error, `code` ENOENT when the
   * program is missing).
   */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  /** Kills the program and everything it started. */
  kill(): void;
}

/**
 * Starts a program with an argument array, never through a shell, with its standard input and output as
 * streams (a compressor between two files). Like run(): a process group of its own, dies with Kade, recorded
 * until it exits. The caller bounds it: read its output or kill it.
 */
export function runPiped(file: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; stdin: 'pipe' | 'ignore' }): PipedChild {
  const child = startChild(file, args, opts, opts.stdin);
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    if (stderr.length < 4096) stderr += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stderr }));
  });
  exited.catch(() => undefined);
  return { stdin: child.stdin, stdout: child.stdout as Readable, exited, kill: () => killGroup(child) };
}

/**
 * Runs a program with an argument array, never through a shell, with a timeout and an output cap. The
 * program runs in a process group of its own, dies with Kade (parent-death signal, watchdog) and is
 * recorded until it exits, so the next start ends it if it did not (children.ts).
 */
export function run(file: string, args: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
  const max = opts.maxOutput ?? 1_000_000;
  return new Promise((resolve, reject) => {
    const child = startChild(file, args, opts, opts.input === undefined ? 'ignore' : 'pipe');
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let aborted = false;
    const kill = () => killGroup(child);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs ?? 120_000);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      stdout = keepTail(stdout + d, max);
      opts.onOutput?.(d);
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr = keepTail(stderr + d, max);
      opts.onOutput?.(d);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      reject(new AppError('internal', `cannot run ${file}: ${err.message}`, { params: { program: file }, cause: err }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ code: code ?? -1, stdout, stderr, timedOut, aborted });
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}
