import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../core/errors.ts';
import type { ContainerSummary } from '../engine/engine.ts';
import { createFakeEngine } from '../engine/fake-engine.ts';
import { createHostService } from './host.service.ts';
import { cachedProbe, type HostProbe, type ProbeResult } from './host-probe.ts';

const web: ContainerSummary = {
  id: 'c1',
  name: 'kadetest-web',
  image: 'x',
  state: 'running',
  status: 'Up',
  health: null,
  ports: [{ host_ip: '127.0.0.1', host_port: 8080, container_port: 80, protocol: 'tcp' }],
  labels: {},
  project: null,
  service: null,
  workingDir: null,
  created: 0,
};
const ok = (tcp: number[], udp: number[] = []): ProbeResult => ({ ok: true, listeners: { tcp: new Set(tcp), udp: new Set(udp) } });
const noTables = async () => ({ ok: false as const, reason: 'failed' as const, message: 'not read in this test' });
const fixed = (r: ProbeResult): HostProbe => ({ listeners: async () => r, netTables: noTables });
const engine = (list: ContainerSummary[] | Error) => {
  const fake = createFakeEngine();
  if (list instanceof Error) fake.failOn('listContainers', { error: list });
  else for (const c of list) fake.put(c);
  return fake;
};

test('a published port names its container and proposes the next port neither source claims', async () => {
  const host = createHostService({ engine: engine([web]), probe: fixed(ok([8080, 8081], [8082])) });
  assert.deepEqual(await host.checkPort(8080), { port: 8080, free: false, held_by: 'kadetest-web', alternative: 8083, host_inspected: true });
  assert.deepEqual(await host.checkPort(8081), { port: 8081, free: false, held_by: null, alternative: 8083, host_inspected: true });
  assert.deepEqual(await host.checkPort(9000), { port: 9000, free: true, held_by: null, alternative: null, host_inspected: true });
});

test('without the host, free is an assumption and the note says so', async () => {
  const host = createHostService({
    engine: engine([web]),
    probe: fixed({ ok: false, reason: 'image_missing', message: "probe image 'nope:1' is not present on the engine", image: 'nope:1' }),
  });
  const free = await host.checkPort(8081);
  assert.equal(free.free, true);
  assert.equal(free.host_inspected, false);
  assert.equal(free.missing_image, 'nope:1');
  assert.match(free.note ?? '', /needs the image 'nope:1'.*`docker pull nope:1`.*'free' is an assumption/);
  const held = await host.checkPort(8080);
  assert.equal(held.held_by, 'kadetest-web');
  assert.equal(held.alternative, 8081);
});

test('an engine that cannot list still answers, saying no container can be named', async () => {
  const down = new AppError('engine_unreachable', 'container engine not reachable: connect ENOENT');
  const host = createHostService({
    engine: engine(down),
    probe: fixed({ ok: false, reason: 'engine_unreachable', message: 'container engine not reachable' }),
  });
  const r = await host.checkPort(8080);
  assert.equal(r.free, true);
  assert.equal(r.host_inspected, false);
  assert.match(r.note ?? '', /could not list containers.*assumption/s);
});

test('the cached probe runs once for concurrent callers and again after its time', async () => {
  let runs = 0;
  let release: () => void = () => undefined;
  const slow: HostProbe = {
    netTables: noTables,
    listeners: () =>
      new Promise((resolve) => {
        runs++;
        release = () => resolve(ok([runs]));
      }),
  };
  let now = 1000;
  const probe = cachedProbe(slow, { ttlMs: 5000, now: () => now });
  const a = probe.listeners();
  const b = probe.listeners();
  now += 60_000; // a probe that takes long is still shared: the time counts from its answer
  const c = probe.listeners();
  release();
  const results = await Promise.all([a, b, c]);
  assert.equal(runs, 1);
  assert.ok(results.every((r) => r === results[0]));
  now += 4999;
  await probe.listeners();
  assert.equal(runs, 1, 'within the time the cached answer serves');
  now += 1;
  const d = probe.listeners();
  release();
  await d;
  assert.equal(runs, 2);
});

test('a failed probe is cached too, and reported once', async () => {
  let runs = 0;
  const failures: ProbeResult[] = [];
  const probe = cachedProbe(
    {
      netTables: noTables,
      listeners: async () => {
        runs++;
        return { ok: false, reason: 'timeout', message: 'slow' };
      },
    },
    { now: () => 0, onFailure: (r) => failures.push(r) },
  );
  await probe.listeners();
  await probe.listeners();
  assert.equal(runs, 1);
  assert.equal(failures.length, 1);
});
