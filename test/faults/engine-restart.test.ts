import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { addressPools, type DockerdProcess, engineAnswers, findDockerd, holdsFile, startDockerd, stopDockerd } from '../helpers/dockerd.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type Received, startHttpReceiver } from '../helpers/receivers.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSocketProxy } from '../helpers/socket-proxy.ts';

// Issue #16 item 5. The route: this CI machine's dockerd is not under systemd (.ci/run starts it with nohup), so
// an admin gets the refusal naming PID 1, and a non-admin is refused outright. Then the engine really restarts
// (SIGTERM to dockerd, started again with the same arguments) under a running Kade, and Kade, never restarted,
// recovers: its lists say what the engine says again, a job succeeds, the notifications watch hears a stop, a
// followed log that the engine cut off ends instead of hanging and a new one streams.
const run = promisify(execFile);
const docker = async (...args: string[]) => (await run('docker', args, { timeout: 60_000 })).stdout.trim();

const APP = 'kadetest-enginerestart';
const LOCK = '/tmp/kade-engine.lock';
const PASSWORD = 'correct-horse-battery';

let kade: TestServer;
let admin: ApiClient;
let receiver: Awaited<ReturnType<typeof startHttpReceiver>>;
/** The daemon as it ran before the test, to start it again the same way whatever happens. */
let daemon: DockerdProcess | undefined;
let poolsBefore = '';

/** `keep` comes back with the engine (restart policy), `once` does not; both print a line a second. */
function writeStack(baseDir: string): void {
  const dir = join(baseDir, 'stacks', APP);
  mkdirSync(dir, { recursive: true });
  const service = (name: string, restart: string | null) => [
    `  ${name}:`,
    '    image: kade-test/busybox:1',
    '    init: true',
    '    network_mode: none',
    `    command: ["sh", "-c", "while true; do echo ${name} tick; sleep 1; done"]`,
    ...(restart ? [`    restart: ${restart}`] : []),
    '    labels:',
    '      kade.test: "1"',
  ];
  writeFileSync(join(dir, 'docker-compose.yml'), ['services:', ...service('keep', 'unless-stopped'), ...service('once', null), ''].join('\n'));
}

async function job(path: string): Promise<{ state: string; log: string[] }> {
  const r = await admin.post(path);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return admin.waitJob(r.body.job.id, 180_000);
}

interface Row {
  id: string;
  name: string;
  service: string | null;
  state: string;
}
const appContainers = async (): Promise<Row[]> => {
  const r = await admin.get<{ containers: Row[] }>(`/api/stacks/${APP}`);
  return r.status === 200 ? r.body.containers : [];
};
const stateOf = (rows: Row[], service: string) => rows.find((c) => c.service === service)?.state;

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Opens a followed log and reads until a line came; `ends` reads on until the stream ends (true) or the time is up (false). */
async function follow(id: string, api: ApiClient = admin) {
  const ac = new AbortController();
  const res = await fetch(`${api.base}/api/containers/${id}/logs?follow=1&tail=1`, { headers: { cookie: api.cookie }, signal: ac.signal });
  assert.equal(res.status, 200, `follow answered ${res.status}`);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const dec = new TextDecoder();
  let text = '';
  while (!/event: line\ndata: \S+ tick/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value);
  }
  assert.match(text, /event: line\ndata: keep tick/);
  const read = async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return true;
      text += dec.decode(value);
    }
  };
  return {
    text: () => text,
    close: () => ac.abort(),
    ends: (withinMs: number) => Promise.race([read(), new Promise<false>((r) => setTimeout(() => r(false), withinMs))]),
  };
}

const messages = () =>
  receiver.got.filter((g: Received) => g.path === '/hook/ops').map((g) => JSON.parse(g.body) as { kind: string; subject: string; message: string });

before(async () => {
  await requireEngine();
  daemon = findDockerd();
  poolsBefore = await addressPools();
  await cleanupLabelled();
  receiver = await startHttpReceiver();
  kade = await startTestServer();
  admin = new ApiClient(kade.url);
  await admin.loginAs('admin', PASSWORD);
  writeStack(kade.baseDir);
  await admin.acceptFiles(APP);
  const started = await job(`/api/stacks/${APP}/start`);
  assert.equal(started.state, 'succeeded', started.log.join('\n'));
  const put = await admin.put('/api/notifications', { channels: [{ id: 'ops', kind: 'webhook', enabled: true, url: `${receiver.url}/hook/ops` }] });
  assert.equal(put.status, 200, JSON.stringify(put.body));
});

after(async () => {
  // The engine must run again with the arguments it had, whatever the test did to it.
  if (daemon && !(await engineAnswers())) await startDockerd(daemon);
  await kade?.close();
  await receiver?.close();
  await cleanupLabelled();
});

test('POST /api/engine/restart: a non-admin is refused; an admin is told why this host cannot (PID 1 is not systemd), audited', async () => {
  assert.equal((await admin.post('/api/users', { name: 'operator', password: PASSWORD, role: 'operator' })).status, 201);
  const operator = new ApiClient(kade.url);
  await operator.loginAs('operator', PASSWORD);
  const refused = await operator.post<{ code: string }>('/api/engine/restart');
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.equal(refused.body.code, 'forbidden');

  // What the engine's host runs as PID 1: this machine's, the engine runs here.
  const pid1 = readFileSync('/proc/1/comm', 'utf8').trim();
  assert.notEqual(pid1, 'systemd', 'this test expects the CI machine, whose dockerd is not under systemd');
  const r = await admin.post<{ code: string; detail: string; params: Record<string, string> }>('/api/engine/restart');
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.equal(r.headers.get('content-type'), 'application/problem+json');
  assert.deepEqual({ code: r.body.code, params: r.body.params }, { code: 'conflict', params: { reason: 'not_systemd', pid1 } });
  assert.equal(r.body.detail, `the engine is not run by systemd on this host (PID 1 is '${pid1}'); restart it with the command your system uses`);
  assert.equal(await engineAnswers(), true, 'the engine was left alone');

  const audit = await admin.get<{ entries: { action: string; status: string; user: string; detail: Record<string, string> }[] }>(
    '/api/audit?action=engine_restart',
  );
  assert.deepEqual(
    audit.body.entries.map((e) => ({ action: e.action, status: e.status, user: e.user, reason: e.detail.reason })),
    [{ action: 'engine_restart', status: 'failed', user: 'admin', reason: 'not_systemd' }],
  );
});

test('dockerd restarts under a running Kade: lists, jobs, the notifications watch and log follows recover without restarting Kade', {
  timeout: 600_000,
}, async () => {
  const d = daemon as DockerdProcess;
  const rows = await until('both containers running', appContainers, (c) => stateOf(c, 'keep') === 'running' && stateOf(c, 'once') === 'running');
  const keep = rows.find((c) => c.service === 'keep') as Row;
  const once = rows.find((c) => c.service === 'once') as Row;
  const followed = await follow(keep.id);

  // A job under way when the engine goes: it ends (either way), it does not stay running.
  const inflight = await admin.post<{ job: { id: string } }>(`/api/stacks/${APP}/restart`);
  assert.equal(inflight.status, 202, JSON.stringify(inflight.body));
  await stopDockerd(d);
  const cutJob = await admin.waitJob(inflight.body.job.id, 180_000);
  assert.ok(cutJob.state === 'succeeded' || (cutJob.state === 'failed' && (cutJob.error ?? '') !== ''), JSON.stringify(cutJob));
  // A job started while the engine is away fails saying so.
  const early = await job(`/api/stacks/${APP}/start`);
  assert.equal(early.state, 'failed', early.log.join('\n'));
  assert.match(early.log.at(-1) ?? '', /^failed: .*(container engine|could not be reached|not reachable)/);
  // The engine is away: the follower's stream ends (an `end` or the connection closing), it does not hang.
  const ended = await followed.ends(30_000);
  followed.close();
  assert.equal(ended, true, `the followed log did not end when the engine went away: ${followed.text().slice(-300)}`);
  const away = await admin.get<{ name: string; warning: string | null }[]>('/api/stacks');
  assert.equal(away.status, 200, JSON.stringify(away.body));
  assert.equal(away.body.find((s) => s.name === APP)?.warning, 'engine_unreachable');

  const again = await startDockerd(d);
  assert.deepEqual(again.argv, d.argv, 'the daemon runs with the arguments it had');
  assert.equal(await addressPools(), poolsBefore, 'the default address pools are the same');
  assert.equal(holdsFile(again.pid, LOCK), false, 'the new daemon does not hold the engine lock');

  // Lists: the restart policy brought `keep` back, `once` stayed stopped; Kade says so without a restart of its own.
  const back = await until(
    'the app list to show keep running and once exited',
    appContainers,
    (c) => stateOf(c, 'keep') === 'running' && stateOf(c, 'once') === 'exited',
  );
  assert.deepEqual(back.map((c) => c.name).sort(), [keep.name, once.name].sort());
  const list = await admin.get<{ name: string; status: string; warning: string | null }[]>('/api/stacks');
  assert.deepEqual((({ status, warning }) => ({ status, warning }))(list.body.find((s) => s.name === APP) ?? { status: '', warning: '' }), {
    status: 'partial',
    warning: null,
  });
  const all = await admin.get<{ id: string; state: string }[]>('/api/containers');
  assert.equal(all.status, 200, JSON.stringify(all.body));
  assert.deepEqual(
    [keep.id, once.id].map((id) => all.body.find((c) => c.id === id)?.state),
    ['running', 'exited'],
  );

  // A new job works against the new engine.
  const started = await job(`/api/stacks/${APP}/start`);
  assert.equal(started.state, 'succeeded', started.log.join('\n'));
  await until('once running again', appContainers, (c) => stateOf(c, 'once') === 'running');

  // The notifications watch hears a stop that happens after the restart.
  const mark = messages().length;
  await docker('kill', once.id);
  const heard = new RegExp(`^The container ${once.name} of the app ${APP} stopped \\(exit code \\d+\\)`);
  await until(
    'the stop message of once',
    async () => messages().slice(mark),
    (m) => m.some((x) => x.kind === 'container_stopped' && heard.test(x.message)),
    90_000,
  );

  // A followed log can be opened again and streams.
  const second = await follow(keep.id);
  second.close();
});

// An engine that dies without closing its streams (a crash, a killed daemon) looks like this to Kade: the socket
// proxy between them drops every connection. A follower must not be left waiting on a stream nobody ends.
test('the engine drops its connections: a followed log ends instead of hanging', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-erproxy-'));
  const proxy = await startSocketProxy(join(dir, 'docker.sock'));
  const cut = await startTestServer({ env: { DOCKER_HOST: proxy.dockerHost } });
  try {
    const api = new ApiClient(cut.url);
    await api.loginAs('admin', PASSWORD);
    const keep = (await appContainers()).find((c) => c.service === 'keep') as Row;
    const followed = await follow(keep.id, api);
    await proxy.cut();
    const ended = await followed.ends(30_000);
    followed.close();
    assert.equal(ended, true, `the followed log did not end when the engine dropped it: ${followed.text().slice(-300)}`);
  } finally {
    await proxy.restore();
    await cut.close();
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
