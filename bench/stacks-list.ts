// Latency of GET /api/stacks and GET /api/containers on a host with many compose stacks, against the
// raw engine listing; process spawns per request; Kade's memory. Prints figures, asserts nothing.
//   npx tsx bench/stacks-list.ts [--stacks 100] [--requests 400] [--small 20]
import { ChildProcess, execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import Docker from 'dockerode';
import { ApiClient } from '../test/helpers/client.ts';
import { startTestServer, type TestServer } from '../test/helpers/server.ts';

const execFileP = promisify(execFile);
const { values: args } = parseArgs({
  options: {
    stacks: { type: 'string', default: '100' },
    requests: { type: 'string', default: '400' },
    small: { type: 'string', default: '20' },
  },
});
const N = Number(args.stacks);
const REQUESTS = Number(args.requests);
const SMALL = Math.min(Number(args.small), N);
const PREFIX = 'kadetest-bench-';
// One shared external network: the engine's default address pools run out near 30 compose networks.
// Chosen over `network_mode: none` because containers on a bridge network carry NetworkSettings in
// the engine's listing, as containers of real apps do, so the listing payload is realistic.
const NETWORK = 'kadetest-bench';
const IMAGE = 'kade-test/busybox:1';
const CONCURRENCY = 8;

const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const root = mkdtempSync(join(tmpdir(), 'kade-bench-'));
const baseDir = join(root, 'base');
const stacksDir = join(baseDir, 'stacks');
mkdirSync(stacksDir, { recursive: true });

// Every child process Kade (or anything in this process) starts goes through ChildProcess#spawn.
let spawns = 0;
const proto = ChildProcess.prototype as unknown as { spawn: (this: ChildProcess, ...a: unknown[]) => unknown };
const originalSpawn = proto.spawn;
proto.spawn = function (this: ChildProcess, ...a: unknown[]) {
  spawns++;
  return originalSpawn.apply(this, a);
};

type Kind = 'running' | 'partial' | 'stopped' | 'never';
/** ~40 % running, 20 % partial, 20 % stopped, 20 % never deployed, interleaved so any prefix has the mix. */
const kindOf = (i: number): Kind => (['running', 'partial', 'running', 'stopped', 'never'] as const)[i % 5] as Kind;
const nameOf = (i: number) => `${PREFIX}${String(i).padStart(3, '0')}`;

function composeText(): string {
  const svc = (s: string) => `  ${s}:\n    image: ${IMAGE}\n    init: true\n    command: ["sleep", "3600"]\n    labels:\n      kade.test: "1"\n`;
  return `services:\n${svc('web')}${svc('worker')}networks:\n  default:\n    external: true\n    name: ${NETWORK}\n`;
}

// As an install writes it; no source repo, so the list does no catalogue lookup per stack.
const META = JSON.stringify({
  format: 1,
  source: null,
  values: {},
  value_types: {},
  secret_env: {},
  services: { web: {}, worker: {} },
  networks: [],
  web: null,
  categories: ['developer'],
  template_version: null,
  installed_at: new Date().toISOString(),
});
/** Containers the deployed stacks [0, n) have: two for every stack that was ever brought up. */
const expectedContainers = (n: number) => Array.from({ length: n }, (_, i) => kindOf(i)).filter((k) => k !== 'never').length * 2;

async function checkContainers(n: number, when: string): Promise<void> {
  const have = (await docker.listContainers({ all: true, filters: { label: ['com.docker.compose.project'] } })).filter((c) =>
    c.Labels['com.docker.compose.project']?.startsWith(PREFIX),
  ).length;
  if (have !== expectedContainers(n)) {
    throw new Error(`${when}: ${have} bench containers, expected ${expectedContainers(n)}; another run's cleanupLabelled() removed them? Run again.`);
  }
}

async function compose(name: string, argv: string[]): Promise<void> {
  const dir = join(stacksDir, name);
  await execFileP('docker-compose', ['-p', name, '-f', join(dir, 'docker-compose.yml'), '--project-directory', dir, ...argv], {
    cwd: dir,
    timeout: 120_000,
  });
}

async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Writes the folders of stacks [from, to) and brings them into their state. */
async function deploy(from: number, to: number): Promise<void> {
  const idx = Array.from({ length: to - from }, (_, k) => from + k);
  for (const i of idx) {
    mkdirSync(join(stacksDir, nameOf(i)));
    writeFileSync(join(stacksDir, nameOf(i), 'docker-compose.yml'), composeText());
    writeFileSync(join(stacksDir, nameOf(i), '.svc.json'), META, { mode: 0o600 });
  }
  const t0 = performance.now();
  const s0 = spawns;
  await pool(
    idx.filter((i) => kindOf(i) !== 'never'),
    CONCURRENCY,
    async (i) => {
      await compose(nameOf(i), ['up', '-d']);
      if (kindOf(i) === 'partial') await compose(nameOf(i), ['stop', '-t', '5', 'worker']);
      if (kindOf(i) === 'stopped') await compose(nameOf(i), ['stop', '-t', '5']);
    },
  );
  out(`deployed stacks ${from}..${to - 1} in ${((performance.now() - t0) / 1000).toFixed(1)} s (${spawns - s0} compose spawns counted)`);
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
const ms = (x: number) => `${x.toFixed(2)} ms`;

interface Figures {
  p50: number;
  p95: number;
  p99: number;
  rps: number;
  spawnsPerReq: number;
}

/** `clients` closed loops share `total` calls of `fn`; latency per call, spawns counted meanwhile. */
async function measure(fn: () => Promise<void>, clients: number, total: number): Promise<Figures> {
  for (let i = 0; i < 10; i++) await fn(); // warm-up
  const times: number[] = [];
  let left = total;
  const before = spawns;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (left > 0) {
        left--;
        const s = performance.now();
        await fn();
        times.push(performance.now() - s);
      }
    }),
  );
  const wall = performance.now() - t0;
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p95: pct(times, 95), p99: pct(times, 99), rps: (total / wall) * 1000, spawnsPerReq: (spawns - before) / total };
}

function apiCall(api: ApiClient, path: string): () => Promise<void> {
  return async () => {
    const r = await api.get(path);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
  };
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

const row = (label: string, f: Figures) =>
  out(
    `  ${label.padEnd(38)} p50 ${ms(f.p50).padStart(10)}  p95 ${ms(f.p95).padStart(10)}  p99 ${ms(f.p99).padStart(10)}  ${f.rps.toFixed(0).padStart(5)} req/s  spawns/req ${f.spawnsPerReq}`,
  );

function memory(label: string): void {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  out(
    `  memory ${label.padEnd(12)} rss ${(m.rss / 2 ** 20).toFixed(1)} MiB  heap used ${(m.heapUsed / 2 ** 20).toFixed(1)} MiB  heap total ${(m.heapTotal / 2 ** 20).toFixed(1)} MiB`,
  );
}

async function countStatuses(api: ApiClient): Promise<string> {
  const list = (await api.get<{ status: string }[]>('/api/stacks')).body;
  const counts: Record<string, number> = {};
  for (const s of list) counts[s.status] = (counts[s.status] ?? 0) + 1;
  return `${list.length} stacks: ${Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`;
}

let cleaning: Promise<void> | null = null;
let kade: TestServer | null = null;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    const t0 = performance.now();
    await kade?.close().catch(() => undefined);
    const mine = (await docker.listContainers({ all: true, filters: { label: ['com.docker.compose.project'] } })).filter((c) =>
      c.Labels['com.docker.compose.project']?.startsWith(PREFIX),
    );
    await pool(mine, CONCURRENCY, async (c) => {
      await docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch((err: unknown) => out(`could not remove ${c.Id}: ${String(err)}`));
    });
    await docker
      .getNetwork(NETWORK)
      .remove()
      .catch((err: { statusCode?: number }) => {
        if (err.statusCode !== 404) out(`could not remove network ${NETWORK}: ${String(err)}`);
      });
    rmSync(root, { recursive: true, force: true });
    out(`cleanup: removed ${mine.length} containers and network ${NETWORK} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  })();
  return cleaning;
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    out(`\n${sig}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  const info = await docker.version();
  out(`engine ${info.Version}, node ${process.version}, ${N} stacks × 2 services, ${REQUESTS} requests per figure`);
  await docker.createNetwork({ Name: NETWORK, Driver: 'bridge', Labels: { 'kade.test': '1' } });

  // Round 1: a host with SMALL installed apps.
  await deploy(0, SMALL);
  kade = await startTestServer({ baseDir, stateDir: join(root, 'state') });
  const api = new ApiClient(kade.url);
  await api.loginAs();
  await checkContainers(SMALL, 'round 1');
  out(`round 1: ${await countStatuses(api)}`);
  row(`GET /api/stacks (${SMALL} apps) ×1`, await measure(apiCall(api, '/api/stacks'), 1, REQUESTS));
  await checkContainers(SMALL, 'after round 1');

  // Round 2: the full host.
  await deploy(SMALL, N);
  await checkContainers(N, 'round 2');
  const raw = () => docker.listContainers({ all: true, filters: { label: ['com.docker.compose.project'] } });
  const all = await docker.listContainers({ all: true });
  out(`round 2: ${await countStatuses(api)}; ${all.length} containers on the host`);
  memory('idle');
  const rawProject = await measure(async () => void (await raw()), 1, REQUESTS);
  const rawAll = await measure(async () => void (await docker.listContainers({ all: true })), 1, REQUESTS);
  row('raw engine listing, project label ×1', rawProject);
  row('raw engine listing, all ×1', rawAll);
  const results: [string, Figures, Figures][] = [];
  for (const clients of [1, 8]) {
    for (const [path, base] of [
      ['/api/stacks', rawProject],
      ['/api/containers', rawAll],
    ] as const) {
      const f = await measure(apiCall(api, path), clients, REQUESTS);
      row(`GET ${path} ×${clients}`, f);
      results.push([`${path} ×${clients}`, f, base]);
    }
  }
  const rawProject8 = await measure(async () => void (await raw()), 8, REQUESTS);
  const rawAll8 = await measure(async () => void (await docker.listContainers({ all: true })), 8, REQUESTS);
  row('raw engine listing, project label ×8', rawProject8);
  row('raw engine listing, all ×8', rawAll8);
  memory('after load');
  await checkContainers(N, 'after round 2');
  out('ratios, endpoint p50 / raw p50 at the same concurrency (target ≤ 1.5; /api/containers lists all, so vs raw all):');
  for (const [label, f, base] of results) {
    const raw8 = label.startsWith('/api/stacks') ? rawProject8 : rawAll8;
    const b = label.endsWith('×1') ? base : raw8;
    out(
      `  ${label.padEnd(20)} ${(f.p50 / b.p50).toFixed(2)}  (vs raw project-label p50: ${(f.p50 / (label.endsWith('×1') ? rawProject : rawProject8).p50).toFixed(2)})`,
    );
  }
}

try {
  await main();
} catch (err) {
  out(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
