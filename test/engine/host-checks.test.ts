import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { DeviceList, PortCheck } from '../../src/shared/host.ts';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine, TEST_LABEL } from '../helpers/engine.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const execFileP = promisify(execFile);
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 60_000 })).stdout.trim();

const IMAGE = 'kade-test/busybox:1';
const PUBLISHER = 'kadetest-hc-publisher';
let kade: TestServer;
let blind: TestServer;
let api: ApiClient;
let blindApi: ApiClient;
let listener: Server;
let published: number;
let listening: number;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function probesLeft(): Promise<string> {
  return docker(['ps', '--all', '--quiet', '--filter', 'label=kade.probe']);
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  published = await freePort();
  await docker(['run', '--detach', '--name', PUBLISHER, '--label', `${TEST_LABEL}=1`, '--publish', `127.0.0.1:${published}:8080`, IMAGE, 'sleep', '600']);
  // A program of the host itself, outside any container: only the probe in the host namespace can see it.
  listener = createServer();
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  listening = (listener.address() as { port: number }).port;
  kade = await startTestServer({ env: { SVC_PROBE_IMAGE: IMAGE } });
  api = new ApiClient(kade.url);
  await api.loginAs();
  blind = await startTestServer({ env: { SVC_PROBE_IMAGE: 'kade-test/no-such-probe:0' } });
  blindApi = new ApiClient(blind.url);
  await blindApi.loginAs();
});

after(async () => {
  await new Promise<void>((r) => (listener ? listener.close(() => r()) : r()));
  await kade?.close();
  await blind?.close();
  await cleanupLabelled();
});

test('a port published by a container is taken and names the container; the first check is a cold probe, the next one cached', async (t) => {
  let started = performance.now();
  const r = await api.get(`/api/ports/check?port=${published}`);
  const cold = performance.now() - started;
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body).sort(), ['alternative', 'free', 'held_by', 'host_inspected', 'port']);
  assert.deepEqual({ ...r.body, alternative: undefined }, { port: published, free: false, held_by: PUBLISHER, alternative: undefined, host_inspected: true });
  assert.equal(typeof r.body.alternative, 'number');
  assert.ok(r.body.alternative > published && r.body.alternative <= published + 16);
  PortCheck.parse(r.body);

  started = performance.now();
  const again = await api.get(`/api/ports/check?port=${published}`);
  const cached = performance.now() - started;
  assert.equal(again.body.held_by, PUBLISHER);
  t.diagnostic(`port check latency: cold ${cold.toFixed(0)} ms, cached ${cached.toFixed(0)} ms`);
  assert.ok(cached < cold, 'the second check reuses the probe');
});

test('a listener of the host process is seen by the probe, with no container to name', async () => {
  const r = await api.get(`/api/ports/check?port=${listening}`);
  assert.equal(r.status, 200);
  assert.equal(r.body.free, false);
  assert.equal(r.body.held_by, null);
  assert.equal(r.body.host_inspected, true);
  assert.equal(r.body.note, undefined);
});

test('a port nobody holds is free, with no alternative needed', async () => {
  const port = await freePort();
  const r = await api.get(`/api/ports/check?port=${port}`);
  assert.deepEqual(r.body, { port, free: true, held_by: null, alternative: null, host_inspected: true });
});

test('with a probe image that is missing, the host is not inspected and the note says free is an assumption', async () => {
  const port = await freePort();
  const r = await blindApi.get(`/api/ports/check?port=${port}`);
  assert.equal(r.status, 200);
  assert.equal(r.body.free, true);
  assert.equal(r.body.host_inspected, false);
  assert.match(r.body.note, /kade-test\/no-such-probe:0/);
  assert.match(r.body.note, /'free' is an assumption/);
  // What is missing and how to get it, for the form to show.
  assert.equal(r.body.missing_image, 'kade-test/no-such-probe:0');
  assert.match(r.body.note, /`docker pull kade-test\/no-such-probe:0`/);
  // Containers are still read: the published port is taken even without the host.
  const held = await blindApi.get(`/api/ports/check?port=${published}`);
  assert.equal(held.body.held_by, PUBLISHER);
  assert.equal(held.body.host_inspected, false);
});

test('ports outside 1–65535 or not plain digits are refused with 400', async () => {
  for (const q of ['port=0', 'port=65536', 'port=-1', 'port=abc', 'port=1.5', 'port=0x50', 'port=', '']) {
    const r = await api.get(`/api/ports/check?${q}`);
    assert.equal(r.status, 400, q);
    assert.equal(r.body.code, 'validation', q);
    assert.deepEqual(r.body.fields, ['port'], q);
  }
});

test('the probe containers remove themselves', async () => {
  const deadline = Date.now() + 10_000;
  while ((await probesLeft()) !== '' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  assert.equal(await probesLeft(), '');
});

test('the device list answers the documented shape', async () => {
  const r = await api.get('/api/devices');
  assert.equal(r.status, 200);
  assert.ok(Array.isArray(r.body));
  DeviceList.parse(r.body);
  for (const d of r.body) assert.equal(d.label === 'vast', d.stable, d.path);
});
