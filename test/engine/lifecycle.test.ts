import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// One app through its whole life over HTTP with a real session; the tests run in order and build on each other.
const execFileP = promisify(execFile);
const STACK = 'kadetest-lc-notes';
const suite = useEngineSuite();

interface Container {
  id: string;
  service: string;
  state: string;
}

const stackStatus = async (): Promise<string | undefined> =>
  (await suite.api.get<{ name: string; status: string }[]>('/api/stacks')).body.find((s) => s.name === STACK)?.status;

async function containers(): Promise<Container[]> {
  const r = await suite.api.get<{ containers: Container[] }>(`/api/stacks/${STACK}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.containers;
}

async function containerOf(service: string): Promise<Container> {
  const c = (await containers()).find((x) => x.service === service);
  assert.ok(c, `a ${service} container`);
  return c;
}

/** Sends the request, expects 202 with a job and waits for that job to succeed; returns its log. */
async function runJob(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<string[]> {
  const r = await suite.api.call<{ job: { id: string } }>(method, path, body);
  assert.equal(r.status, 202, `${method} ${path}: ${JSON.stringify(r.body)}`);
  const j = await suite.api.waitJob(r.body.job.id);
  assert.equal(j.state, 'succeeded', `${method} ${path}:\n${j.log.join('\n')}`);
  return j.log;
}

/** Writes a line into the container's own log: PID 1's stdout (docker-init's) is the log stream. */
async function logLine(id: string, text: string): Promise<void> {
  await execFileP('docker', ['exec', id, 'sh', '-c', `echo '${text}' > /proc/1/fd/1`], { timeout: 30_000 });
}

async function engineHas(kind: 'container' | 'volume', filter: string): Promise<string[]> {
  const args = kind === 'container' ? ['container', 'ls', '--all', '--quiet'] : ['volume', 'ls', '--quiet'];
  const { stdout } = await execFileP('docker', [...args, '--filter', filter], { timeout: 30_000 });
  return stdout.split('\n').filter((l) => l !== '');
}

test('install of the two-service notes app from the fixture repo starts both services', async () => {
  const add = await suite.api.post('/api/repos', { name: 'Basic', url: suite.git.url('basic'), branch: 'main', subdirectory: 'apps' });
  assert.equal(add.status, 202, JSON.stringify(add.body));
  assert.equal((await suite.api.waitJob(add.body.job.id)).state, 'succeeded');

  const log = await runJob('POST', '/api/store/install', { repo: 'basic', app: 'notes', name: STACK, values: { greeting: 'hello-lc' } });
  assert.ok(
    log.some((l) => /2 container\(s\) running/.test(l)),
    log.join('\n'),
  );
  const entry = (await suite.api.get<{ name: string; status: string; services: string[] }[]>('/api/stacks')).body.find((s) => s.name === STACK);
  assert.equal(entry?.status, 'running');
  assert.deepEqual([...(entry?.services ?? [])].sort(), ['web', 'worker']);
  assert.deepEqual((await containers()).map((c) => `${c.service}:${c.state}`).sort(), ['web:running', 'worker:running']);
});

test('stop, start and restart change the status the list shows', async () => {
  for (const [op, expected] of [
    ['stop', 'stopped'],
    ['start', 'running'],
    ['restart', 'running'],
  ] as const) {
    await runJob('POST', `/api/stacks/${STACK}/${op}`);
    assert.equal(await stackStatus(), expected, `after ${op}`);
  }
  assert.deepEqual(
    (await containers()).map((c) => c.state),
    ['running', 'running'],
  );
});

test('the app log merges both services, each line prefixed by its service, and honours tail', async () => {
  for (const service of ['web', 'worker']) {
    const c = await containerOf(service);
    for (let i = 1; i <= 3; i++) await logLine(c.id, `lc-${service}-${i}`);
  }
  const r = await suite.api.get<string>(`/api/stacks/${STACK}/logs?tail=20`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  const lines = r.body.split('\n').filter((l) => l !== '');
  for (const service of ['web', 'worker']) {
    for (let i = 1; i <= 3; i++) assert.ok(lines.includes(`${service} | lc-${service}-${i}`), `${service} line ${i} in:\n${r.body}`);
  }
  const web = lines.filter((l) => l.startsWith('web | lc-'));
  assert.deepEqual(web, ['web | lc-web-1', 'web | lc-web-2', 'web | lc-web-3'], 'lines of one service keep their order');
  const one = await suite.api.get<string>(`/api/stacks/${STACK}/logs?tail=1`);
  assert.deepEqual(
    one.body
      .split('\n')
      .filter((l) => l !== '')
      .sort(),
    ['web | lc-web-3', 'worker | lc-worker-3'],
  );
});

test('stopping one container through the container routes makes the app partial; starting it makes it running', async () => {
  const worker = await containerOf('worker');
  const stop = await suite.api.post(`/api/containers/${worker.id}/stop`);
  assert.equal(stop.status, 204, JSON.stringify(stop.body));
  assert.equal(await stackStatus(), 'partial');
  assert.equal((await containerOf('worker')).state, 'exited');
  assert.equal((await containerOf('web')).state, 'running');
  const start = await suite.api.post(`/api/containers/${worker.id}/start`);
  assert.equal(start.status, 204, JSON.stringify(start.body));
  assert.equal(await stackStatus(), 'running');
});

test('a second job on the app while one runs is refused 409 slot_busy; the slot is free afterwards', async () => {
  const first = await suite.api.post<{ job: { id: string } }>(`/api/stacks/${STACK}/restart`);
  assert.equal(first.status, 202);
  for (const [method, path] of [
    ['POST', `/api/stacks/${STACK}/stop`],
    ['POST', `/api/stacks/${STACK}/restart`],
    ['DELETE', `/api/stacks/${STACK}?remove_data=1`],
  ] as const) {
    const r = await suite.api.call<{ code: string; params: { stack: string; job: string } }>(method, path);
    assert.equal(r.status, 409, `${method} ${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.equal(r.body.code, 'slot_busy');
    assert.deepEqual(r.body.params, { stack: STACK, job: first.body.job.id });
  }
  const j = await suite.api.waitJob(first.body.job.id);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  await runJob('POST', `/api/stacks/${STACK}/stop`);
  assert.equal(await stackStatus(), 'stopped');
});

test('delete with remove_data=1 removes the containers, the folder, the app data and the named volume', async () => {
  const dir = join(suite.kade.baseDir, 'stacks', STACK);
  const data = join(suite.kade.baseDir, 'appdata', STACK);
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, 'keep.txt'), 'app data');
  const project = `label=com.docker.compose.project=${STACK}`;
  assert.equal((await engineHas('volume', project)).length, 1, 'the notes volume exists before the delete');

  // A backup first: the app (its folder and data) is kept in BACKUP_DIR before anything goes.
  const log = await runJob('DELETE', `/api/stacks/${STACK}?backup=1&remove_data=1`);
  assert.ok(
    log.some((l) => l.startsWith(`backing up '${STACK}' to `)),
    log.join('\n'),
  );
  const kept = await suite.api.get<{ stack: string }[]>(`/api/backups?stack=${STACK}`);
  assert.equal(kept.body.length, 1, `the deleted app can still be restored from its backup: ${JSON.stringify(kept.body)}`);
  assert.equal(existsSync(dir), false, 'stack folder removed');
  assert.equal(existsSync(data), false, 'app data removed');
  assert.deepEqual(await engineHas('container', project), [], 'containers removed');
  assert.deepEqual(await engineHas('volume', project), [], 'named volume removed');
  assert.equal(await stackStatus(), undefined);
  const gone = await suite.api.get(`/api/stacks/${STACK}`);
  assert.equal(gone.status, 404);
});
