import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Docker from 'dockerode';
import { createDockerEngine } from '../../src/server/engine/docker-engine.ts';
import { COMPOSE_PROJECT_LABEL, COMPOSE_SERVICE_LABEL, type ContainerSummary } from '../../src/server/engine/engine.ts';
import { cleanupLabelled, requireEngine, TEST_LABEL, TEST_LABEL_VALUE } from '../helpers/engine.ts';
import { freePort, readAll, readUntil, rejectsWith } from './contract-helpers.ts';

const engine = createDockerEngine({ socketPath: '/var/run/docker.sock' });
// Containers are created with dockerode directly: the Engine interface has no such call.
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const IMAGE = 'kade-test/busybox:1';
const PROJECT = 'kadetest-contract';
const OTHER_PROJECT = 'kadetest-contract-other';
// A random suffix so a container left by a crashed earlier run never collides by name.
const run = randomBytes(3).toString('hex');
const T = { timeout: 60_000 };

async function create(name: string, opts: { cmd?: string[]; labels?: Record<string, string>; extra?: Partial<Docker.ContainerCreateOptions> } = {}) {
  const c = await docker.createContainer({
    name: `kadetest-${name}-${run}`,
    Image: IMAGE,
    Cmd: opts.cmd ?? ['sleep', '300'],
    Labels: { [TEST_LABEL]: TEST_LABEL_VALUE, ...opts.labels },
    // `sleep` as PID 1 ignores SIGTERM; the init makes stop take milliseconds instead of 10 s.
    HostConfig: { Init: true, ...opts.extra?.HostConfig },
    ...(opts.extra?.ExposedPorts ? { ExposedPorts: opts.extra.ExposedPorts } : {}),
  });
  return c.id;
}

async function find(id: string): Promise<ContainerSummary | undefined> {
  return (await engine.listContainers()).find((c) => c.id === id);
}

async function stateOf(id: string): Promise<{ state: string | undefined; running: boolean; startedAt: string }> {
  const info = (await engine.inspectContainer(id)) as { State: { Running: boolean; StartedAt: string } };
  return { state: (await find(id))?.state, running: info.State.Running, startedAt: info.State.StartedAt };
}

let plain = '';
let composed = '';
let other = '';
let port = 0;
let ported = '';

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  plain = await create('plain');
  composed = await create('composed', { labels: { [COMPOSE_PROJECT_LABEL]: PROJECT, [COMPOSE_SERVICE_LABEL]: 'web' } });
  other = await create('other', { labels: { [COMPOSE_PROJECT_LABEL]: OTHER_PROJECT, [COMPOSE_SERVICE_LABEL]: 'db' } });
  port = await freePort();
  // 8080 is exposed but not published: the engine lists it with no host side, and that row must stay.
  ported = await create('ported', {
    extra: {
      ExposedPorts: { '80/tcp': {}, '8080/tcp': {} },
      HostConfig: { PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: String(port) }] } },
    },
  });
  for (const id of [plain, composed, other, ported]) await docker.getContainer(id).start();
});

after(async () => {
  await cleanupLabelled();
});

test('ping reports the engine and API version', T, async () => {
  const info = await engine.ping();
  assert.match(info.version, /^\d+\.\d+/);
  assert.match(info.apiVersion, /^1\.\d+$/);
});

test('listContainers summarises a container: name, image, state, labels, compose project and service', T, async () => {
  const list = await engine.listContainers();
  const p = list.find((c) => c.id === plain);
  assert.ok(p, 'the plain container is listed');
  assert.equal(p.name, `kadetest-plain-${run}`);
  assert.equal(p.image, IMAGE);
  assert.equal(p.state, 'running');
  assert.match(p.status, /^Up /);
  assert.equal(p.labels[TEST_LABEL], TEST_LABEL_VALUE);
  assert.equal(p.project, null);
  assert.equal(p.service, null);
  assert.equal(p.health, null);
  assert.equal(typeof p.created, 'number');
  const c = list.find((x) => x.id === composed);
  assert.ok(c, 'the compose-labelled container is listed');
  assert.equal(c.project, PROJECT);
  assert.equal(c.service, 'web');
  assert.equal(c.labels[COMPOSE_PROJECT_LABEL], PROJECT);
});

test('listContainers({ composeOnly }) lists only compose-labelled containers', T, async () => {
  const list = await engine.listContainers({ composeOnly: true });
  const ids = list.map((c) => c.id);
  assert.ok(ids.includes(composed) && ids.includes(other));
  assert.ok(!ids.includes(plain) && !ids.includes(ported));
  assert.ok(list.every((c) => c.project !== null));
});

test('listContainers({ project }) lists only that project', T, async () => {
  const list = await engine.listContainers({ project: PROJECT });
  assert.deepEqual(
    list.map((c) => c.id),
    [composed],
  );
  assert.deepEqual(
    (await engine.listContainers({ project: 'kadetest-no-such-project' })).map((c) => c.id),
    [],
  );
});

test('ports: none gives [], a published port has its host side, an exposed-only port is kept without one', T, async () => {
  assert.deepEqual((await find(plain))?.ports, []);
  const ports = [...((await find(ported))?.ports ?? [])].sort((a, b) => a.container_port - b.container_port);
  assert.deepEqual(ports, [
    { host_ip: '127.0.0.1', host_port: port, container_port: 80, protocol: 'tcp' },
    { host_ip: null, host_port: null, container_port: 8080, protocol: 'tcp' },
  ]);
});

test('start, stop and restart change the state', T, async () => {
  const id = await create('cycle');
  assert.equal((await stateOf(id)).state, 'created');
  await engine.startContainer(id);
  const started = await stateOf(id);
  assert.equal(started.state, 'running');
  assert.equal(started.running, true);
  await engine.stopContainer(id);
  assert.deepEqual([(await stateOf(id)).state, (await stateOf(id)).running], ['exited', false]);
  await engine.startContainer(id);
  const before = await stateOf(id);
  assert.equal(before.state, 'running');
  await engine.restartContainer(id);
  const restarted = await stateOf(id);
  assert.equal(restarted.state, 'running');
  assert.ok(restarted.startedAt > before.startedAt, `restart starts it anew (${before.startedAt} -> ${restarted.startedAt})`);
});

test('starting a running container and stopping a stopped one are no-ops', T, async () => {
  await engine.startContainer(plain);
  const id = await create('stopped');
  await engine.stopContainer(id);
});

test('containerLogs with tail gives only the last lines, demultiplexed, stdout and stderr alike', T, async () => {
  const id = await create('logs', { cmd: ['sh', '-c', 'for i in 1 2 3 4 5; do echo line-$i; done'] });
  // The engine copies stdout and stderr separately, so their order in the log is not defined.
  const mixed = await create('mixed', { cmd: ['sh', '-c', 'echo to-out; echo to-err >&2'] });
  for (const c of [id, mixed]) {
    await docker.getContainer(c).start();
    await docker.getContainer(c).wait();
  }
  assert.equal(await readAll(await engine.containerLogs(id, { tail: 2 })), 'line-4\nline-5\n');
  assert.equal(await readAll(await engine.containerLogs(id, {})), 'line-1\nline-2\nline-3\nline-4\nline-5\n');
  const both = await readAll(await engine.containerLogs(mixed, {}));
  assert.deepEqual(both.split('\n').sort(), ['', 'to-err', 'to-out']);
});

test('containerLogs with follow streams a line printed after the call', T, async () => {
  const id = await create('follow', { cmd: ['sh', '-c', 'echo early; sleep 300'] });
  await docker.getContainer(id).start();
  const stream = await engine.containerLogs(id, { follow: true });
  try {
    const marker = `late-${randomBytes(4).toString('hex')}`;
    // PID 1 is the init, whose stdout is the container's log: an exec writing there lands in it.
    const exec = await docker.getContainer(id).exec({ Cmd: ['sh', '-c', `echo ${marker} > /proc/1/fd/1`] });
    // Detached, the answer is an empty stream; left unread it holds its socket and the test process open.
    (await exec.start({ Detach: true })).resume();
    const text = await readUntil(stream, marker, 20_000);
    assert.ok(text.startsWith('early\n'), JSON.stringify(text));
    assert.match(text, /^[ -~\n]*$/, 'printable lines only: no multiplexing headers');
  } finally {
    (stream as unknown as { destroy(): void }).destroy();
  }
});

test('removeContainer removes it, running or not', T, async () => {
  const id = await create('remove');
  await engine.startContainer(id);
  await engine.removeContainer(id);
  assert.equal(await find(id), undefined);
  await rejectsWith(engine.inspectContainer(id), 'not_found');
});

test('an unknown container id is not_found for every operation', T, async () => {
  const id = `kadetest-missing-${run}`;
  await rejectsWith(engine.inspectContainer(id), 'not_found');
  await rejectsWith(engine.startContainer(id), 'not_found');
  await rejectsWith(engine.stopContainer(id), 'not_found');
  await rejectsWith(engine.restartContainer(id), 'not_found');
  await rejectsWith(engine.removeContainer(id), 'not_found');
  await rejectsWith(engine.containerLogs(id, { tail: 10 }), 'not_found');
  await rejectsWith(engine.containerLogs(id, { follow: true }), 'not_found');
});

test('an unreachable engine is engine_unreachable: missing socket and closed tcp port', T, async () => {
  for (const endpoint of [{ socketPath: '/nonexistent.sock' }, { host: '127.0.0.1', port: await freePort() }]) {
    const dead = createDockerEngine(endpoint);
    const ping = await rejectsWith(dead.ping(), 'engine_unreachable');
    assert.match(ping.message, /ENOENT|ECONNREFUSED/);
    await rejectsWith(dead.listContainers(), 'engine_unreachable');
  }
});

// What dockerode did before engine-api.ts: the engine's own words in errors, a bounded read, a followed log that ends.

test("an engine error's own message reaches the AppError", T, async () => {
  const volume = `kadetest-vol-${run}`;
  await docker.createVolume({ Name: volume, Labels: { [TEST_LABEL]: TEST_LABEL_VALUE } });
  await create('holds-volume', { extra: { HostConfig: { Mounts: [{ Type: 'volume', Source: volume, Target: '/data' }] } } });
  const err = await rejectsWith(engine.removeVolume(volume), 'conflict');
  // The engine's sentence itself ("remove kadetest-vol-…: volume is in use - […]"), not a status line.
  assert.match(err.message, /volume is in use/);
  assert.doesNotMatch(err.message, /HTTP/);
});

test('a read against an engine that accepts and never answers fails after the read time-out', T, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-hung-'));
  const socketPath = join(dir, 'docker.sock');
  const held: Socket[] = [];
  const server = createNetServer((s) => held.push(s));
  await new Promise<void>((r) => server.listen(socketPath, () => r()));
  try {
    const hung = createDockerEngine({ socketPath }, { readTimeoutMs: 300 });
    const began = Date.now();
    const err = await rejectsWith(hung.ping(), 'engine_unreachable');
    assert.match(err.message, /did not answer within 0\.3 s/);
    await rejectsWith(hung.listContainers(), 'engine_unreachable');
    await rejectsWith(hung.inspectContainer(plain), 'engine_unreachable');
    assert.ok(Date.now() - began < 5000, `${Date.now() - began} ms`);
    assert.ok(held.length >= 3, 'each read connected');
  } finally {
    for (const s of held) s.destroy();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a followed log ends when its container is removed', T, async () => {
  const id = await create('follow-removed', { cmd: ['sh', '-c', 'echo before; sleep 300'] });
  await engine.startContainer(id);
  const stream = await engine.containerLogs(id, { follow: true });
  await readUntil(stream, 'before', 20_000);
  const ended = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the followed log did not end within 20 s of the removal')), 20_000);
    stream.once('end', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  stream.resume();
  await engine.removeContainer(id);
  await ended;
});
