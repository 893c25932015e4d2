import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type Received, startHttpReceiver } from '../helpers/receivers.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSocketProxy } from '../helpers/socket-proxy.ts';

const run = promisify(execFile);
const docker = async (...args: string[]) => (await run('docker', args, { timeout: 60_000 })).stdout.trim();

const IMAGE = 'kade-test/busybox:1';
const STACK = 'kadetest-notify';
const SLEEP = ['sh', '-c', 'while true; do sleep 1; done'];

let kade: TestServer;
let admin: ApiClient;
let receiver: Awaited<ReturnType<typeof startHttpReceiver>>;
/** What Kade's bus saw, to say why a message did not come. */
const seen: string[] = [];

/** A managed app: a compose folder under LIBRARY_DIR (Kade's listing reads the folders), started through the API. */
function writeStack(baseDir: string): void {
  const dir = join(baseDir, 'stacks', STACK);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    [
      'services:',
      '  web:',
      `    image: ${IMAGE}`,
      '    init: true',
      '    network_mode: none',
      `    command: ${JSON.stringify(SLEEP)}`,
      '    labels:',
      '      kade.test: "1"',
      '',
    ].join('\n'),
  );
}

const messages = (): { kind: string; subject: string; message: string }[] =>
  receiver.got.filter((g: Received) => g.path === '/hook/ops').map((g) => JSON.parse(g.body) as { kind: string; subject: string; message: string });

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(messages())}; events ${seen.join(' ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function op(path: string): Promise<void> {
  const r = await admin.post(path);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await admin.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
}

const containerId = async () => docker('ps', '-q', '--filter', `label=com.docker.compose.project=${STACK}`);

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  receiver = await startHttpReceiver();
  kade = await startTestServer();
  kade.kade.events.subscribe((e) => seen.push(`${e.type}:${e.target ?? ''}:${String(e.detail?.state ?? '')}`));
  admin = new ApiClient(kade.url);
  await admin.loginAs();
  writeStack(kade.baseDir);
  await admin.acceptFiles(STACK);
  await op(`/api/stacks/${STACK}/start`);
  const put = await admin.put('/api/notifications', { channels: [{ id: 'ops', kind: 'webhook', enabled: true, url: `${receiver.url}/hook/ops` }] });
  assert.equal(put.status, 200, JSON.stringify(put.body));
});

after(async () => {
  await kade?.close();
  await receiver?.close();
  await cleanupLabelled();
});

test('docker kill of a managed container: exactly one message naming the app, within seconds', async () => {
  const id = await containerId();
  assert.ok(id, 'the app runs');
  await docker('kill', id);
  await until('the stop message', () => messages().some((m) => m.kind === 'container_stopped'));
  // The die and any later event of the same stop must not add a second message.
  await new Promise((r) => setTimeout(r, 4_000));
  await kade.kade.notifications.idle();
  const stops = messages().filter((m) => m.kind === 'container_stopped');
  assert.equal(stops.length, 1, JSON.stringify(stops));
  assert.match(stops[0]?.message ?? '', new RegExp(`the app ${STACK}`));
  assert.match(stops[0]?.subject ?? '', new RegExp(STACK));
});

test('start, stop and restart through Kade send nothing', async () => {
  await op(`/api/stacks/${STACK}/start`);
  const before = messages().length;
  await op(`/api/stacks/${STACK}/restart`);
  await op(`/api/stacks/${STACK}/stop`);
  // Longer than the decision's grace, so a stop that were going to count would have been sent.
  await new Promise((r) => setTimeout(r, 5_000));
  await kade.kade.notifications.idle();
  assert.deepEqual(messages().slice(before), []);
  // After Kade's own stop and start, a kill is a new stop again: the state had been left by the start.
  await op(`/api/stacks/${STACK}/start`);
  await docker('kill', await containerId());
  await until('the second stop message', () => messages().length === before + 1);
});

// The engine goes away and comes back (a socket proxy between Kade and the engine, cut and restored, which is
// what an engine restart looks like to Kade): the event stream reconnects by itself, and a kill after the
// return is reported once; a kill while the engine was away is caught up from the stored cursor.
test('the event stream reconnects after the engine went away and came back', { timeout: 120_000 }, async () => {
  const proxy = await startSocketProxy(join(mkdtempSync(join(tmpdir(), 'kade-nproxy-')), 'docker.sock'));
  const cut = await startTestServer({ env: { DOCKER_HOST: proxy.dockerHost } });
  // The same app is managed by this second Kade too (same compose project), so its watch reports it.
  writeStack(cut.baseDir);
  try {
    const api = new ApiClient(cut.url);
    await api.loginAs();
    await api.acceptFiles(STACK);
    const put = await api.put('/api/notifications', { channels: [{ id: 'cut', kind: 'webhook', enabled: true, url: `${receiver.url}/hook/cut` }] });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const mine = () => receiver.got.filter((g: Received) => g.path === '/hook/cut').map((g) => JSON.parse(g.body) as { kind: string; subject: string });
    await op(`/api/stacks/${STACK}/start`);
    // Give the watch a moment to open its stream through the proxy.
    await new Promise((r) => setTimeout(r, 1_500));
    await proxy.cut();
    await new Promise((r) => setTimeout(r, 2_000));
    await proxy.restore();
    // Back within the watch's backoff; a kill now must arrive through the new stream.
    await new Promise((r) => setTimeout(r, 3_000));
    await docker('kill', await containerId());
    const deadline = Date.now() + 45_000;
    while (!mine().some((m) => m.kind === 'container_stopped')) {
      if (Date.now() > deadline)
        assert.fail(`no stop message after the engine came back; requests: ${proxy.requests.filter((r) => r.includes('/events')).join(' | ')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(proxy.requests.filter((r) => r.includes('/events')).length >= 2, 'the stream was opened again after the cut');
    assert.equal(mine().filter((m) => m.kind === 'container_stopped').length, 1);
  } finally {
    await cut.close();
    await proxy.close();
  }
});
