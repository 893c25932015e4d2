import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { DomainEvent } from '../../src/server/core/events.ts';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const docker = async (...args: string[]) => (await run('docker', args, { timeout: 60_000 })).stdout.trim();

const PASSWORD = 'correct-horse-battery';
const IMAGE = 'kade-test/busybox:1';
const PLAIN = 'kadetest-ctr-plain';
const OWN = 'kadetest-ctr-own';
const FOREIGN = 'kadetest-ctr-foreign';
const VOLUME = 'kadetest-ctr-vol';
const STACK = 'kadetest-ctr-app';
// A line every 0.2 s, so tails and follows have something to read.
const TALK = ['sh', '-c', 'i=0; while true; do echo "line $i"; i=$((i+1)); sleep 0.2; done'];

let kade: TestServer;
let admin: ApiClient;
let viewer: ApiClient;
let ownId: string;
const events: DomainEvent[] = [];

async function runContainer(name: string, extra: string[] = []): Promise<string> {
  return docker('run', '-d', '--init', '--name', name, '--label', 'kade.test=1', ...extra, IMAGE, ...TALK);
}

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
      `    command: ${JSON.stringify(TALK).replaceAll('$', '$$$$')}`,
      '    labels:',
      '      kade.test: "1"',
      '',
    ].join('\n'),
  );
}

const byName = async (client: ApiClient, name: string) => {
  const r = await client.get('/api/containers');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { name: string }[]).find((c) => c.name === name) as Record<string, unknown> | undefined;
};

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  await docker('volume', 'create', '--label', 'kade.test=1', VOLUME);
  await runContainer(PLAIN, ['-v', `${VOLUME}:/data`]);
  ownId = await runContainer(OWN);
  // Compose labels of a project that is no folder under LIBRARY_DIR: not managed.
  await runContainer(FOREIGN, ['--label', 'com.docker.compose.project=kadetest-ctr-elsewhere', '--label', 'com.docker.compose.service=db']);
  kade = await startTestServer({ kade: { ownContainerId: ownId } });
  kade.kade.events.subscribe((e) => events.push(e));
  admin = new ApiClient(kade.url);
  await admin.loginAs('admin', PASSWORD);
  const made = await admin.post('/api/users', { name: 'viewer', password: PASSWORD, role: 'viewer' });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  viewer = new ApiClient(kade.url);
  await viewer.loginAs('viewer', PASSWORD);
  writeStack(kade.baseDir);
  await admin.acceptFiles(STACK);
  const start = await admin.post(`/api/stacks/${STACK}/start`);
  assert.equal(start.status, 202, JSON.stringify(start.body));
  const job = await admin.waitJob(start.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
});

after(async () => {
  await kade?.close();
  await cleanupLabelled();
});

test('the list holds unmanaged containers with empty fields and managed ones with their stack', async () => {
  const plain = await byName(viewer, PLAIN);
  assert.ok(plain, 'the unmanaged container is listed');
  assert.deepEqual(
    { ports: plain.ports, project: plain.project, service: plain.service, stack: plain.stack, managed: plain.managed, own: plain.own, state: plain.state },
    { ports: [], project: null, service: null, stack: null, managed: false, own: false, state: 'running' },
  );
  assert.equal(plain.image, IMAGE);
  assert.match(String(plain.created), /^\d{4}-\d\d-\d\dT/);
  const foreign = await byName(viewer, FOREIGN);
  assert.equal(foreign?.managed, false, 'a compose project outside LIBRARY_DIR is not managed');
  assert.equal(foreign?.project, 'kadetest-ctr-elsewhere');
  const all = (await viewer.get('/api/containers')).body as Record<string, unknown>[];
  const managed = all.filter((c) => c.stack === STACK);
  assert.equal(managed.length, 1);
  assert.deepEqual(
    { managed: managed[0]?.managed, service: managed[0]?.service, project: managed[0]?.project },
    { managed: true, service: 'web', project: STACK },
  );
  assert.deepEqual(
    all.filter((c) => c.own).map((c) => c.name),
    [OWN],
  );
});

test("Kade's own container may be started but not stopped, restarted or deleted", async () => {
  for (const [method, path] of [
    ['POST', `/api/containers/${OWN}/stop`],
    ['POST', `/api/containers/${OWN}/restart`],
    ['DELETE', `/api/containers/${OWN}`],
    ['POST', `/api/containers/${ownId.slice(0, 12)}/stop`],
  ] as const) {
    const r = await admin.call(method, path);
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.equal(r.body.code, 'own_container');
  }
  assert.equal((await admin.post(`/api/containers/${OWN}/start`)).status, 204);
  assert.equal((await byName(admin, OWN))?.state, 'running');
});

test('an unmanaged container is stopped, started and restarted, with events naming the actor', async () => {
  for (const [op, state] of [
    ['stop', 'exited'],
    ['start', 'running'],
    ['restart', 'running'],
  ] as const) {
    const r = await admin.post(`/api/containers/${PLAIN}/${op}`);
    assert.equal(r.status, 204, `${op}: ${JSON.stringify(r.body)}`);
    assert.equal((await byName(admin, PLAIN))?.state, state, `after ${op}`);
    const e = events.findLast((x) => x.type === `container.${op}`);
    assert.equal(e?.actor?.user, 'admin');
    assert.equal(e?.target, PLAIN);
  }
});

test('logs: a tail as plain text, since in the future gives nothing, follow streams events', async () => {
  const tail = await viewer.get(`/api/containers/${PLAIN}/logs?tail=3`);
  assert.equal(tail.status, 200);
  assert.match(tail.headers.get('content-type') ?? '', /^text\/plain/);
  const lines = String(tail.body).trim().split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[0] ?? '', /^line \d+$/);
  const later = await viewer.get(`/api/containers/${PLAIN}/logs?since=${new Date(Date.now() + 3600_000).toISOString()}`);
  assert.equal(later.body, '');

  const ac = new AbortController();
  const res = await fetch(`${kade.url}/api/containers/${PLAIN}/logs?follow=1&tail=1`, { headers: { cookie: viewer.cookie }, signal: ac.signal });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  const dec = new TextDecoder();
  while ((text.match(/event: line/g) ?? []).length < 3) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value);
  }
  ac.abort();
  assert.match(text, /event: line\ndata: line \d+/);
});

test('app logs prefix each line with its service; follow streams them', async () => {
  const r = await viewer.get(`/api/stacks/${STACK}/logs?tail=5`);
  assert.equal(r.status, 200, String(r.body));
  const lines = String(r.body).trim().split('\n');
  assert.equal(lines.length, 5);
  for (const l of lines) assert.match(l, /^web \| line \d+$/);
  const ac = new AbortController();
  const res = await fetch(`${kade.url}/api/stacks/${STACK}/logs?follow=1&tail=1`, { headers: { cookie: viewer.cookie }, signal: ac.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  ac.abort();
  assert.match(new TextDecoder().decode(value), /data: web \| line \d+/);
  assert.equal((await viewer.get('/api/stacks/kadetest-ctr-none/logs')).status, 404);
  assert.equal((await viewer.get('/api/stacks/Bad..name/logs')).status, 400);
});

test('a viewer may list, inspect and read logs but operates nothing; env values are hidden from non-admins', async () => {
  for (const [method, path] of [
    ['POST', `/api/containers/${PLAIN}/stop`],
    ['POST', `/api/containers/${PLAIN}/start`],
    ['POST', `/api/containers/${PLAIN}/restart`],
    ['DELETE', `/api/containers/${PLAIN}`],
  ] as const) {
    const r = await viewer.call(method, path);
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.equal(r.body.code, 'forbidden');
  }
  const seen = await viewer.get(`/api/containers/${PLAIN}`);
  assert.equal(seen.status, 200);
  assert.equal(seen.body.Name, `/${PLAIN}`);
  assert.ok((seen.body.Config.Env as string[]).every((e) => e.endsWith('=•••')));
  const full = await admin.get(`/api/containers/${PLAIN}`);
  assert.ok((full.body.Config.Env as string[]).some((e) => e.startsWith('PATH=/')));
});

test('bad ids are refused before the engine is asked; unknown ones are 404', async () => {
  for (const id of ['.hidden', '-x', 'a%20b', 'x'.repeat(129)]) {
    const r = await admin.get(`/api/containers/${id}`);
    assert.equal(r.status, 400, id);
    assert.equal(r.body.code, 'validation');
  }
  for (const [method, path] of [
    ['GET', '/api/containers/kadetest-ctr-nope'],
    ['POST', '/api/containers/kadetest-ctr-nope/stop'],
    ['DELETE', '/api/containers/kadetest-ctr-nope'],
    ['GET', '/api/containers/kadetest-ctr-nope/logs'],
  ] as const) {
    const r = await admin.call(method, path);
    assert.equal(r.status, 404, `${method} ${path}`);
    assert.equal(r.body.code, 'not_found');
  }
});

test('connectable lists installed apps with their container names', async () => {
  const r = await viewer.get('/api/apps/connectable');
  assert.equal(r.status, 200);
  const app = (await admin.get('/api/containers')).body.find((c: { stack: string | null }) => c.stack === STACK);
  assert.deepEqual(r.body, [{ stack: STACK, source: null, containers: [app.name] }]);
  assert.match(app.name, /^kadetest-ctr-app[_-]web[_-]1$/);
});

test('delete removes the container only: its named volume and image stay', async () => {
  const r = await admin.del(`/api/containers/${PLAIN}`);
  assert.equal(r.status, 204, JSON.stringify(r.body));
  assert.equal(await byName(admin, PLAIN), undefined);
  assert.equal(await docker('volume', 'inspect', '--format', '{{.Name}}', VOLUME), VOLUME);
  assert.match(await docker('image', 'inspect', '--format', '{{.Id}}', IMAGE), /^sha256:/);
  const e = events.findLast((x) => x.type === 'container.deleted');
  assert.deepEqual({ user: e?.actor?.user, target: e?.target, status: e?.status }, { user: 'admin', target: PLAIN, status: 'ok' });
});
