// `npm start` as a person runs it (issue 24 item 19): npm, its shell, and Kade. The start prints where to open Kade
// and what comes next there; request lines stay out of the info log; SIGTERM to npm (what a service manager or a
// terminal's `kill` sends) stops Kade, so the next start gets its port.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { requireEngine } from '../helpers/engine.ts';

const ROOT = resolve('.');
const work = mkdtempSync(join(tmpdir(), 'kade-npm-start-'));
// A checkout whose build is up to date: this tree's package.json, scripts and build, and no sources newer than it,
// so `npm start` starts at once instead of building (which the shared work tree must not do under running tests).
const checkout = join(work, 'kade');
const started: ChildProcess[] = [];

before(async () => {
  await requireEngine();
  assert.ok(existsSync(join(ROOT, 'dist', 'server', 'main.js')) && existsSync(join(ROOT, 'dist', 'web', 'index.html')), 'needs `npm run build` first');
  mkdirSync(join(checkout, 'dist'), { recursive: true });
  mkdirSync(join(checkout, 'src'));
  for (const f of ['package.json', 'VERSION']) copyFileSync(join(ROOT, f), join(checkout, f));
  for (const d of ['scripts', 'node_modules']) symlinkSync(join(ROOT, d), join(checkout, d));
  for (const d of ['server', 'web']) symlinkSync(join(ROOT, 'dist', d), join(checkout, 'dist', d));
  writeFileSync(join(checkout, 'dist', '.built'), `${new Date().toISOString()}\n`);
});

after(() => {
  for (const c of started) if (c.pid !== undefined && c.exitCode === null) process.kill(-c.pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer().once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

/** `npm start` in its own process group, as from a terminal; its output gathered. */
function npmStart(port: number, logLevel: string) {
  const child = spawn('npm', ['start'], {
    cwd: checkout,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      SVC_PORT: String(port),
      SVC_BIND: '127.0.0.1',
      BASE_DIR: join(work, 'base'),
      SVC_DATA: join(work, 'data'),
      SVC_LOG_LEVEL: logLevel,
      SVC_PROBE_IMAGE: 'kade-test/busybox:1',
      SVC_PROBE_PULL: '0',
    },
  });
  started.push(child);
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  return {
    child,
    exited,
    output: () => out,
    async line(re: RegExp, timeoutMs = 60_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const m = re.exec(out);
        if (m) return m[0];
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.fail(`no line ${re} in:\n${out}`);
    },
  };
}

/** Whether anything still accepts connections on the port. */
const answers = (port: number) =>
  fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
    () => true,
    () => false,
  );

/** Whether any process of the group is left. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopWithSigterm(run: ReturnType<typeof npmStart>, port: number): Promise<void> {
  const pid = run.child.pid as number;
  // To npm alone, not its group: npm must hand the signal on to Kade.
  process.kill(pid, 'SIGTERM');
  await run.exited;
  const deadline = Date.now() + 15_000;
  while ((groupAlive(pid) || (await answers(port))) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  assert.equal(await answers(port), false, `Kade still answers on ${port} after SIGTERM to npm:\n${run.output()}`);
  assert.equal(groupAlive(pid), false, 'no process of npm start is left');
}

test('npm start says where to open Kade and what to do there; SIGTERM to npm stops it; request lines are debug', async () => {
  const port = await freePort();
  const first = npmStart(port, 'info');
  assert.equal(await first.line(/^Kade is running at .*$/m), `Kade is running at http://127.0.0.1:${port} — open it to create the admin account`);
  for (let i = 0; i < 5; i++) assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  const setup = await fetch(`http://127.0.0.1:${port}/api/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'correct-horse-battery' }),
  });
  assert.equal(setup.status, 201, await setup.text());
  assert.doesNotMatch(first.output(), /"msg":"request"/, 'no request lines at info');
  await stopWithSigterm(first, port);

  // The same port again (before, the first Kade still held it: EADDRINUSE); an admin exists now.
  const second = npmStart(port, 'debug');
  assert.equal(await second.line(/^Kade is running at .*$/m), `Kade is running at http://127.0.0.1:${port} — open it to sign in`);
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  await second.line(/"path":"\/healthz"[^\n]*"msg":"request"/, 10_000);
  assert.doesNotMatch(second.output(), /EADDRINUSE/);
  await stopWithSigterm(second, port);
});
