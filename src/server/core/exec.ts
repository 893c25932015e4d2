import { spawn } from 'node:child_process';
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
   * Runs the program in its own process group and kills the whole group on timeout or abort, so
   * helpers it started (git's remote-http) cannot keep the output open and outlive the bound.
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

/** Runs a program with an argument array, never through a shell, with a timeout and an output cap. */
export function run(file: string, args: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
  const max = opts.maxOutput ?? 1_000_000;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: opts.group === true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let aborted = false;
    const kill = () => {
      if (opts.group && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
          return;
        } catch {
          // The group is gone already; fall through to the child itself.
        }
      }
      child.kill('SIGKILL');
    };
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
