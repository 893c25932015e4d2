import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// A job cut off by a restart of Kade must read `interrupted`, never unknown, and free its app's slot.
// The first Kade runs in a child process that is killed with SIGKILL mid-job: a real crash, so no code of
// the old process can touch the job, its log or the database afterwards. This file is also that child.
const CHILD_ENV = 'KADE_INTERRUPTED_CHILD';
const STACK = 'kadetest-lc-slow';

/** Child mode: a Kade on the given folders; prints its URL and runs until killed. */
async function runChild(): Promise<void> {
  const server = await startTestServer({ stateDir: process.env.KADE_CHILD_STATE ?? '', baseDir: process.env.KADE_CHILD_BASE ?? '' });
  process.stdout.write(`URL ${server.url}\n`);
  setInterval(() => undefined, 60_000);
}

/** An app whose only container stays `health: starting` for a minute, so the install job waits in waitUntilUp. */
function writeSlowRepo(dir: string): void {
  const app = join(dir, 'apps', 'slow');
  mkdirSync(app, { recursive: true });
  writeFileSync(join(dir, 'VERSION'), 'v0.1.00\n');
  writeFileSync(
    join(app, 'template.json'),
    JSON.stringify({
      name: 'Slow',
      description: 'Never becomes healthy within the install wait.',
      version: '1.0.0',
      tags: ['test'],
      fields: [{ id: 'note', label: 'Note', default: 'slow' }],
    }),
  );
  writeFileSync(
    join(app, 'docker-compose.yml'),
    [
      'services:',
      '  app:',
      '    image: kade-test/busybox:1',
      '    init: true',
      '    command: ["sleep", "3600"]',
      '    environment:',
      '      NOTE: "{{note}}"',
      '    healthcheck:',
      '      test: ["CMD", "false"]',
      '      interval: 30s',
      '      start_period: 60s',
      '    labels:',
      '      kade.test: "1"',
      '',
    ].join('\n'),
  );
}

async function startChild(stateDir: string, baseDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, [CHILD_ENV]: '1', KADE_CHILD_STATE: stateDir, KADE_CHILD_BASE: baseDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child Kade did not start within 30 s: ${stderr}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`child Kade exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (!line.startsWith('URL ')) return;
      clearTimeout(timer);
      resolve(line.slice(4));
    });
  });
  return { child, url };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

if (process.env[CHILD_ENV] === '1') {
  await runChild();
} else {
  const root = mkdtempSync(join(tmpdir(), 'kade-interrupted-'));
  const stateDir = join(root, 'state');
  const baseDir = join(root, 'base');
  let git: GitServer | undefined;
  let child: ChildProcess | undefined;
  let kade: TestServer | undefined;

  before(async () => {
    await requireEngine();
    await cleanupLabelled();
    const repoDir = join(root, 'slow-repo');
    writeSlowRepo(repoDir);
    git = await startGitServer();
    await git.addRepo('slow', repoDir, { branch: 'main' });
  });
  after(async () => {
    if (child) await kill(child);
    await kade?.close();
    await git?.close();
    await cleanupLabelled();
    rmSync(root, { recursive: true, force: true });
  });

  test('a job cut off by a restart reads interrupted with a closing log line, and its slot is free again', async () => {
    const first = await startChild(stateDir, baseDir);
    child = first.child;
    const api1 = new ApiClient(first.url);
    await api1.loginAs();
    const add = await api1.post('/api/repos', { name: 'Slow', url: (git as GitServer).url('slow'), branch: 'main', subdirectory: 'apps' });
    assert.equal(add.status, 202, JSON.stringify(add.body));
    assert.equal((await api1.waitJob(add.body.job.id)).state, 'succeeded');
    const inst = await api1.post<{ job: { id: string } }>('/api/store/install', { repo: 'slow', app: 'slow', name: STACK, values: {} });
    assert.equal(inst.status, 202, JSON.stringify(inst.body));
    const id = inst.body.job.id;

    // Wait until compose is done and the job sits in the wait for a healthy container.
    const deadline = Date.now() + 45_000;
    for (;;) {
      const j = await api1.get<{ state: string; progress: number }>(`/api/jobs/${id}`);
      assert.equal(j.body.state, 'running', `the install must still run: ${JSON.stringify(j.body)}`);
      if (j.body.progress >= 0.7) break;
      assert.ok(Date.now() < deadline, 'the install reached the wait for the containers');
      await sleep(200);
    }
    const before = (await api1.get<{ lines: string[] }>(`/api/jobs/${id}/log?offset=0`)).body.lines;
    await kill(child);

    kade = await startTestServer({ stateDir, baseDir });
    const api = new ApiClient(kade.url);
    await api.loginAs();
    const job = await api.get<{ state: string; progress: number; ended_at: string | null; error: string | null }>(`/api/jobs/${id}`);
    assert.equal(job.status, 200);
    assert.equal(job.body.state, 'interrupted');
    assert.ok(job.body.ended_at, 'an interrupted job has ended');
    assert.ok(job.body.progress >= 0.7 && job.body.progress < 1, `progress kept: ${job.body.progress}`);
    const listed = (await api.get<{ id: string; state: string }[]>('/api/jobs')).body.find((j) => j.id === id);
    assert.equal(listed?.state, 'interrupted');

    const log = await api.get<{ lines: string[]; next_offset: number; done: boolean }>(`/api/jobs/${id}/log?offset=0`);
    assert.equal(log.status, 200);
    assert.equal(log.body.done, true);
    assert.deepEqual(log.body.lines.slice(0, before.length), before, 'the log written before the crash is kept');
    assert.match(log.body.lines.at(-1) ?? '', /^interrupted: /);
    assert.ok(!log.body.lines.some((l) => /unknown/i.test(l)), log.body.lines.join('\n'));
    const tail = await api.get<{ lines: string[] }>(`/api/jobs/${id}/log?offset=${log.body.next_offset}`);
    assert.deepEqual(tail.body.lines, [], 'polling on does not repeat a line');

    // The slot is free: a new job on the app is accepted and runs; then the app goes.
    for (const [method, path] of [
      ['POST', `/api/stacks/${STACK}/stop`],
      ['DELETE', `/api/stacks/${STACK}`],
    ] as const) {
      const r = await api.call<{ job: { id: string } }>(method, path);
      assert.equal(r.status, 202, `${method} ${path}: ${JSON.stringify(r.body)}`);
      const j = await api.waitJob(r.body.job.id);
      assert.equal(j.state, 'succeeded', j.log.join('\n'));
    }
  });
}
