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
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
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
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 120_000);
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
      reject(new AppError('internal', `cannot run ${file}: ${err.message}`, { params: { program: file }, cause: err }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, timedOut });
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}
