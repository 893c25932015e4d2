import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { setChildRegistry } from './children.ts';
import { run, runPiped } from './exec.ts';

// A program run() started must not outlive the process that started it: killed with SIGKILL (no code of
// it runs afterwards), its child and the child's own children end at once, and what still escaped (the
// watchdog killed too) is ended by the next start, never a process that merely got the same pid.
const MAIN = fileURLToPath(new URL('../../../test/helpers/run-child-main.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kade-exec-'));
const started: ChildProcess[] = [];

after(() => {
  for (const c of started) if (c.pid !== undefined) killQuietly(c.pid);
  rmSync(root, { recursive: true, force: true });
});

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** A process that runs, not a zombie (a killed orphan waits there until init reaps it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

async function gone(pids: number[], ms = 3_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (pids.some(alive) && Date.now() < deadline) await sleep(25);
  return pids.filter(alive);
}

/** Starts run-child-main.ts on `registry`; resolves with it and the pids of its `sh` child and that one's `sleep`. */
async function startRunner(registry: string): Promise<{ proc: ChildProcess; sh: number; grandchild: number }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', MAIN, registry], { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(proc);
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the runner did not start its child within 20 s')), 20_000);
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).once('line', (l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const [sh, grandchild] = line.split(' ').map(Number);
  assert.ok(sh && grandchild, `the child printed its pids: ${line}`);
  assert.ok(alive(sh) && alive(grandchild));
  return { proc, sh, grandchild };
}

const exited = (p: ChildProcess) =>
  new Promise<void>((resolve) => (p.exitCode !== null || p.signalCode !== null ? resolve() : p.once('exit', () => resolve())));

/** The watchdog children.ts starts: a child of `pid` running the constant `sh -c` script. */
function watchdogOf(pid: number): number | null {
  for (const n of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && readFileSync(`/proc/${n}/cmdline`, 'utf8').includes('groups=')) return Number(n);
    } catch {
      // ended while listed
    }
  }
  return null;
}

test("the process that called run() killed with SIGKILL: its child and the child's own child are gone at once", async () => {
  const registry = join(root, 'a');
  const { proc, sh, grandchild } = await startRunner(registry);
  assert.ok(existsSync(join(registry, `${sh}.json`)), 'the running child is recorded in the state folder');
  process.kill(proc.pid as number, 'SIGKILL');
  await exited(proc);
  assert.deepEqual(await gone([sh, grandchild]), [], 'neither the child nor its sleep outlives the killed process');
});

test('run() keeps its behaviour: output, exit code, timeout kills the whole group, a missing program is refused', async () => {
  const ok = await run('sh', ['-c', 'echo out; echo err >&2; exit 3']);
  assert.deepEqual(
    { code: ok.code, stdout: ok.stdout, stderr: ok.stderr, timedOut: ok.timedOut },
    { code: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false },
  );
  const echoed = await run('cat', [], { input: 'typed' });
  assert.equal(echoed.stdout, 'typed');
  let inner = 0;
  const slow = await run('sh', ['-c', 'sleep 300 & echo $!; wait'], { timeoutMs: 500, onOutput: (t) => (inner = Number(t.trim())) });
  assert.equal(slow.timedOut, true);
  assert.ok(inner > 0);
  assert.deepEqual(await gone([inner]), [], "the timeout ends the program's own children too");
  await assert.rejects(run('kade-no-such-program', []), /cannot run kade-no-such-program/);
});

test('runPiped() streams both ways, tells the exit code and stderr, kills the whole group, and a missing program rejects', async () => {
  const upper = runPiped('tr', ['a-z', 'A-Z'], { stdin: 'pipe' });
  upper.stdin?.end('streamed');
  let out = '';
  for await (const chunk of upper.stdout) out += String(chunk);
  assert.equal(out, 'STREAMED');
  assert.deepEqual(await upper.exited, { code: 0, signal: null, stderr: '' });
  assert.equal((await runPiped('sh', ['-c', 'echo bad >&2; exit 4'], { stdin: 'ignore' }).exited).stderr, 'bad\n');

  const slow = runPiped('sh', ['-c', 'sleep 300 & echo $!; wait'], { stdin: 'ignore' });
  const inner = Number(String(await new Promise((r) => slow.stdout.once('data', r))).trim());
  slow.kill();
  assert.equal((await slow.exited).signal, 'SIGKILL');
  assert.deepEqual(await gone([inner]), [], "kill ends the program's own children too");
  await assert.rejects(runPiped('kade-no-such-program', [], { stdin: 'ignore' }).exited, { code: 'ENOENT' });
});

test('the next start ends a child that escaped (recorded in its pid file), never a process that got its pid since', async () => {
  const registry = join(root, 'b');
  const { proc, sh, grandchild } = await startRunner(registry);
  // The watchdog killed first (like an out-of-memory kill of everything): only the pid file is left to tell.
  const watchdog = watchdogOf(proc.pid as number);
  assert.ok(watchdog, 'the runner has a watchdog');
  process.kill(watchdog, 'SIGKILL');
  await gone([watchdog]);
  process.kill(proc.pid as number, 'SIGKILL');
  await exited(proc);
  await gone([sh]);
  assert.ok(alive(grandchild), 'the sleep escaped: the parent-death signal reaches the direct child only');

  // A process that got a recorded pid after the child ended: the same pid, another start time.
  const decoy = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  started.push(decoy);
  const rec = JSON.parse(readFileSync(join(registry, `${sh}.json`), 'utf8')) as { pid: number };
  writeFileSync(join(registry, `${decoy.pid}.json`), JSON.stringify({ ...rec, pid: decoy.pid }));

  const ended = setChildRegistry(registry);
  assert.deepEqual(
    ended.map((s) => s.pid),
    [sh],
    'the escaped group is ended',
  );
  assert.deepEqual(await gone([grandchild]), [], 'the sleep the dead child started is killed');
  await sleep(200);
  assert.ok(alive(decoy.pid as number), 'the process that reused a recorded pid is left alone');
  assert.deepEqual(readdirSync(registry), [], 'the pid files of the previous run are gone');
});
