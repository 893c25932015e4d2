import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface KadeChild {
  child: ChildProcess;
  url: string;
  /** Resolves when the process has ended (killed by a test or by its own failpoint). */
  exited: Promise<void>;
  /** SIGKILL of Kade and every process it started (a compose run): like the end of Kade's container. */
  kill(): Promise<void>;
}

const MAIN = fileURLToPath(new URL('./kade-child-main.ts', import.meta.url));

/**
 * Starts a real Kade in a child process of its own process group, on the given folders, so a test can
 * kill it the hard way: no code of the old process touches jobs, files or the database afterwards.
 * `failpoint` arms a named point (src/server/core/failpoint.ts) where Kade kills itself.
 */
export async function startKadeChild(opts: { stateDir: string; baseDir: string; failpoint?: string; env?: Record<string, string> }): Promise<KadeChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      ...process.env,
      KADE_CHILD_STATE: opts.stateDir,
      KADE_CHILD_BASE: opts.baseDir,
      KADE_CHILD_FAILPOINT: opts.failpoint ?? '',
      KADE_CHILD_ENV: JSON.stringify(opts.env ?? {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child Kade did not start within 30 s: ${stderr}`)), 30_000);
    child.once('exit', (code, signal) => reject(new Error(`child Kade ended (${code ?? signal}) before it started: ${stderr}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (!line.startsWith('URL ')) return;
      clearTimeout(timer);
      resolve(line.slice(4));
    });
  });
  const killGroup = () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  return {
    child,
    url,
    exited,
    async kill() {
      killGroup();
      await exited;
    },
  };
}

/** Waits until a child that armed a failpoint has killed itself there, then ends what it left running. */
export async function diedAtFailpoint(k: KadeChild, timeoutMs = 60_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`Kade did not reach its failpoint within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([k.exited, late]);
  } finally {
    clearTimeout(timer);
  }
  await k.kill();
  if (k.child.signalCode !== 'SIGKILL') throw new Error(`Kade ended with ${k.child.exitCode ?? k.child.signalCode}, not at its failpoint`);
}
