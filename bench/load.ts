// Kade under load (issue #12): latency of the API under 200 concurrent clients, the server's largest
// event-loop delay while 50 log streams are followed, peak RSS. Prints figures, asserts nothing.
//   npx tsx bench/load.ts [--clients 200] [--followers 50] [--rounds 10] [--settle 10]
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { ApiClient } from '../test/helpers/client.ts';
import { apiLoad, CHATTY, type Follower, follow, type LoadResult, quantile, runTalker, writeChattyApp } from '../test/load/load-kit.ts';

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '200' },
    followers: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '10' },
    settle: { type: 'string', default: '10' },
  },
});
const CLIENTS = Number(args.clients);
const FOLLOWERS = Number(args.followers);
const ROUNDS = Number(args.rounds);
const SETTLE_MS = Number(args.settle) * 1000;
const TARGET_MS = 100;
const TALKERS = Array.from({ length: 5 }, (_, i) => `kadetest-bench-load-${i}`);
const APP = 'kadetest-bench-load-app';
const PATHS = ['/api/stacks', '/api/containers', '/healthz'];
const PASSWORD = 'correct-horse-battery';

const run = promisify(execFile);
const docker = async (...a: string[]) => (await run('docker', a, { timeout: 120_000 })).stdout.trim();

interface Stats {
  maxDelayMs: number;
  p99DelayMs: number;
  rssMiB: number;
  peakRssMiB: number;
  openLogStreams: number;
}

/** The Kade under test, in its own process (bench/load-server.ts). */
class Server {
  private readonly lines: Interface;
  private readonly waiting: ((line: string) => void)[] = [];
  constructor(readonly child: ChildProcess) {
    this.lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    this.lines.on('line', (line) => this.waiting.shift()?.(line));
  }
  next(): Promise<string> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  async reset(): Promise<void> {
    const answer = this.next();
    this.child.stdin?.write('reset\n');
    await answer;
  }
  async stats(): Promise<Stats> {
    const answer = this.next();
    this.child.stdin?.write('stats\n');
    return JSON.parse((await answer).replace(/^STATS /, '')) as Stats;
  }
}

async function startServer(): Promise<{ server: Server; url: string; baseDir: string }> {
  const main = fileURLToPath(new URL('./load-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', main], { stdio: ['pipe', 'pipe', 'inherit'] });
  const server = new Server(child);
  const url = (await server.next()).replace(/^URL /, '');
  const baseDir = (await server.next()).replace(/^BASE /, '');
  return { server, url, baseDir };
}

async function cleanup(): Promise<void> {
  const ids = (await docker('ps', '-aq', '--filter', 'name=kadetest-bench-load')).split('\n').filter(Boolean);
  if (ids.length > 0) await docker('rm', '-f', ...ids);
}

const ms = (v: number) => `${v.toFixed(1)} ms`;
function printLoad(what: string, r: LoadResult, seconds: number): void {
  const bad = [...r.statuses].filter(([s]) => s < 200 || s > 299).reduce((n, [, c]) => n + c, 0);
  console.log(
    `${what}: ${r.requests} requests in ${seconds.toFixed(1)} s (${Math.round(r.requests / seconds)}/s); ` +
      `p50 ${ms(quantile(r.latencies, 0.5))}, p99 ${ms(quantile(r.latencies, 0.99))}, max ${ms(Math.max(...r.latencies))}; ` +
      `non-2xx ${bad}, no answer ${r.errors.length}`,
  );
}

async function load(url: string, cookies: string[]): Promise<{ result: LoadResult; seconds: number }> {
  const started = performance.now();
  const result = await apiLoad({ base: url, cookies, paths: PATHS, clients: CLIENTS, rounds: ROUNDS, deadlineMs: 120_000 });
  return { result, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
  await cleanup();
  await Promise.all(TALKERS.map((name) => runTalker(name, CHATTY)));
  const { server, url, baseDir } = await startServer();
  const followers: Follower[] = [];
  try {
    const admin = new ApiClient(url);
    await admin.loginAs('admin', PASSWORD);
    await admin.post('/api/users', { name: 'viewer', password: PASSWORD, role: 'viewer' });
    const viewer = new ApiClient(url);
    await viewer.loginAs('viewer', PASSWORD);
    writeChattyApp(baseDir, APP);
    await admin.acceptFiles(APP);
    const start = await admin.post(`/api/stacks/${APP}/start`);
    const job = await admin.waitJob(start.body.job.id);
    if (job.state !== 'succeeded') throw new Error(`the chatty app did not start: ${job.log.join('\n')}`);
    const cookies = [admin.cookie, viewer.cookie];
    console.log(`Kade in its own process; ${CLIENTS} clients × ${ROUNDS} rounds of ${PATHS.join(', ')}; ${FOLLOWERS} followers`);

    await server.reset();
    const quiet = await load(url, cookies);
    printLoad('API alone', quiet.result, quiet.seconds);
    const s0 = await server.stats();
    console.log(`  event loop: max ${ms(s0.maxDelayMs)}, p99 ${ms(s0.p99DelayMs)}`);

    // Four of five follow a container (~200 lines/s each), one in five the two-container app.
    for (let i = 0; i < FOLLOWERS; i++) {
      const path = i % 5 === 4 ? `/api/stacks/${APP}/logs` : `/api/containers/${TALKERS[i % TALKERS.length]}/logs`;
      followers.push(follow(`${url}${path}?follow=1&tail=5`, viewer.cookie));
    }
    await Promise.all(followers.map((f) => f.first));
    await server.reset();
    const before = followers.reduce((n, f) => n + f.lines(), 0);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const s1 = await server.stats();
    const lines = followers.reduce((n, f) => n + f.lines(), 0) - before;
    console.log(
      `${FOLLOWERS} followers alone for ${SETTLE_MS / 1000} s: ${Math.round(lines / (SETTLE_MS / 1000))} lines/s delivered, ` +
        `${s1.openLogStreams} engine log streams; event loop: max ${ms(s1.maxDelayMs)}, p99 ${ms(s1.p99DelayMs)}`,
    );

    await server.reset();
    const busy = await load(url, cookies);
    printLoad(`API with ${FOLLOWERS} followers`, busy.result, busy.seconds);
    const s2 = await server.stats();
    console.log(`  event loop: max ${ms(s2.maxDelayMs)}, p99 ${ms(s2.p99DelayMs)}`);

    for (const f of followers) f.close();
    let left = s2.openLogStreams;
    for (let i = 0; i < 50 && left > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = (await server.stats()).openLogStreams;
    }
    console.log(`engine log streams open after the followers left: ${left}`);
    const worst = Math.max(s1.maxDelayMs, s2.maxDelayMs);
    console.log(`peak RSS of the server: ${s2.peakRssMiB.toFixed(0)} MiB (now ${s2.rssMiB.toFixed(0)} MiB)`);
    console.log(`largest event-loop delay with ${FOLLOWERS} log streams: ${ms(worst)}; target ≤ ${TARGET_MS} ms: ${worst <= TARGET_MS ? 'met' : 'NOT met'}`);
  } finally {
    for (const f of followers) f.close();
    server.child.stdin?.end();
    await new Promise((resolve) => server.child.once('exit', resolve));
    await cleanup();
  }
}

await main();
