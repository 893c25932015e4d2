import { type ChildProcess, spawn } from 'node:child_process';

const started: ChildProcess[] = [];

/** Runs the command as a user would; resolves with what it printed once it printed an address or ended. */
export function serveExamples(env: Record<string, string>): Promise<{ child: ChildProcess; out: string; code: number | null }> {
  const child = spawn('npm', ['run', '--silent', 'examples:serve'], { env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ child, out: `${out}\n(no address within 60 s)`, code: null }), 60_000);
    const seen = (d: Buffer) => {
      out += d.toString('utf8');
      if (/Stop with Ctrl\+C/.test(out)) {
        clearTimeout(timer);
        resolve({ child, out, code: null });
      }
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ child, out, code });
    });
  });
}

/** The address `npm run examples:serve` printed. */
export const examplesUrl = (out: string): string | undefined => /at (http:\/\/127\.0\.0\.1:\d+\/kade-examples\.git)/.exec(out)?.[1];

/** Ends every run started here that still runs: each leads its own process group (npm, sh, tsx, node), so the whole group goes. */
export function stopExamplesServers(): void {
  for (const c of started) {
    if (c.pid && c.exitCode === null && c.signalCode === null) process.kill(-c.pid, 'SIGKILL');
  }
}
