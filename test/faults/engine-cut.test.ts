import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ApiAnswer, ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { type SocketProxy, startSocketProxy } from '../helpers/socket-proxy.ts';
import { containerValues, fileValues, readFiles, startJob, writePlainRepo } from './plain-app.ts';

// The container engine goes away while compose runs `up`: Kade talks to it (and runs compose) through a
// socket proxy the test cuts the moment compose asks the engine to create the app's container. The job
// must end (failed, saying the engine could not be reached), the files must be whole (an install's
// complete folder, a reconfigure's old files), the read routes must answer with a code instead of a 500
// or a hang, and once the engine is back the app starts and runs.
const root = mkdtempSync(join(tmpdir(), 'kade-cut-'));
const APP = 'kadetest-cut-app';
let proxy: SocketProxy | undefined;
let git: GitServer | undefined;
let kade: TestServer | undefined;
let api: ApiClient;

const stackDir = () => join(kade?.baseDir ?? '', 'stacks', APP);
/** The moment compose asks the engine for the app's container (v1 `<app>_app_1`, v2 `<app>-app-1`). */
const createsContainer = new RegExp(`^POST \\S*/containers/create\\?name=${APP}[-_]app[-_]1`);
/** What the job says when compose lost the engine: plain words and the address Kade used. */
const ENGINE_GONE = /^the container engine at unix:\/\/\S+engine\.sock could not be reached during compose up of 'kadetest-cut-app': start the engine/;

/** A request that must answer, whatever it answers: a hang fails the test instead of stalling it. */
async function answers<T>(what: string, call: Promise<ApiAnswer<T>>): Promise<ApiAnswer<T>> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within 60 s while the engine was away`)), 60_000);
  });
  try {
    return await Promise.race([call, hang]);
  } finally {
    clearTimeout(timer);
  }
}

async function install(): Promise<void> {
  const j = await api.waitJob(await startJob(api, 'POST', '/api/store/install', { repo: 'plain', app: 'plain', name: APP, values: {} }));
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  proxy = await startSocketProxy(join(root, 'engine.sock'));
  writePlainRepo(join(root, 'plain-repo'));
  git = await startGitServer();
  await git.addRepo('plain', join(root, 'plain-repo'), { branch: 'main' });
  kade = await startTestServer({ env: { DOCKER_HOST: proxy.dockerHost } });
  api = new ApiClient(kade.url);
  await api.loginAs();
  await api.addSyncedRepo('Plain', git.url('plain'));
});

after(async () => {
  await proxy?.close();
  await kade?.close();
  await git?.close();
  await cleanupLabelled();
  rmSync(root, { recursive: true, force: true });
});

test("the engine goes away during an install's `up`: the job fails saying so, the folder is whole, reads answer with a code, and the app starts once the engine is back", async () => {
  const p = proxy as SocketProxy;
  await p.restore();
  const cutting = p.cutOn(createsContainer);
  const id = await startJob(api, 'POST', '/api/store/install', { repo: 'plain', app: 'plain', name: APP, values: {} });
  await cutting;
  const j = await api.waitJob(id, 120_000);
  assert.equal(j.state, 'failed', j.log.join('\n'));
  assert.match(j.error ?? '', ENGINE_GONE, j.log.join('\n'));
  assert.equal(j.log.at(-1), `failed: ${j.error}`, 'the log closes with what went wrong');

  assert.deepEqual(
    readdirSync(join(kade?.baseDir ?? '', 'stacks')).filter((n) => n.includes(APP)),
    [APP],
    'no half-written temp folder, only the complete app folder',
  );
  assert.ok(
    readFiles(stackDir()).every((f) => f !== null),
    'compose file, .env and .svc.json are all there',
  );
  assert.deepEqual(fileValues(stackDir()), { title: 'old', token: 'token-old-1' });

  // The reads while the engine is away: the app list from the files, with the reason; the containers a 502 problem.
  const list = await answers('GET /api/stacks', api.get<{ name: string; status: string; warning: string; failure: { job: string } | null }[]>('/api/stacks'));
  assert.equal(list.status, 200, JSON.stringify(list.body));
  const row = list.body.find((s) => s.name === APP);
  assert.deepEqual(
    { status: row?.status, warning: row?.warning, failure: row?.failure?.job },
    { status: 'unknown', warning: 'engine_unreachable', failure: id },
    'the row says the engine is unreachable and keeps the failed install',
  );
  const one = await answers(`GET /api/stacks/${APP}`, api.get<{ status: string; warning: string }>(`/api/stacks/${APP}`));
  assert.deepEqual({ status: one.status, state: one.body.status, warning: one.body.warning }, { status: 200, state: 'unknown', warning: 'engine_unreachable' });
  const containers = await answers('GET /api/containers', api.get<{ code: string; detail: string }>('/api/containers'));
  assert.equal(containers.status, 502, JSON.stringify(containers.body));
  assert.equal(containers.headers.get('content-type'), 'application/problem+json');
  assert.equal(containers.body.code, 'engine_unreachable');
  assert.match(containers.body.detail, /^container engine not reachable: /);

  // A start while the engine is still away fails the same way, and does not hang either.
  const early = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/start`), 120_000);
  assert.equal(early.state, 'failed', early.log.join('\n'));
  assert.match(
    early.error ?? '',
    /^the container engine at unix:\/\/\S+ could not be reached during compose up of 'kadetest-cut-app'|^container engine not reachable: /,
  );

  await p.restore();
  const retry = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/start`), 120_000);
  assert.equal(retry.state, 'succeeded', retry.log.join('\n'));
  assert.deepEqual(await containerValues(api, APP), { title: 'old', token: 'token-old-1', state: 'running' });
});

test("the engine goes away during a reconfigure's `up`: the job fails saying so, the old files are back byte for byte, and the old app runs once the engine is back", async () => {
  const p = proxy as SocketProxy;
  const old = readFiles(stackDir());
  const cutting = p.cutOn(createsContainer);
  const id = await startJob(api, 'POST', `/api/stacks/${APP}/reconfigure`, { values: { title: 'new', token: 'token-new-2' } });
  await cutting;
  const j = await api.waitJob(id, 120_000);
  assert.equal(j.state, 'failed', j.log.join('\n'));
  assert.match(j.error ?? '', ENGINE_GONE, j.log.join('\n'));
  assert.ok(
    j.log.some((l) => /^restored snapshot \S+: the files are as they were$/.test(l)),
    j.log.join('\n'),
  );
  assert.ok(!j.log.join('\n').includes('token-new-2'), 'the new secret is masked in the log');
  assert.deepEqual(readFiles(stackDir()), old, 'compose file, .env and .svc.json are the old ones byte for byte');

  const list = await answers('GET /api/stacks', api.get<{ name: string; warning: string }[]>('/api/stacks'));
  assert.equal(list.body.find((s) => s.name === APP)?.warning, 'engine_unreachable');

  await p.restore();
  const start = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/start`), 120_000);
  assert.equal(start.state, 'succeeded', start.log.join('\n'));
  assert.deepEqual(await containerValues(api, APP), { title: 'old', token: 'token-old-1', state: 'running' }, 'the old configuration runs');

  // The same change again, with the engine there: it goes through.
  const again = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/reconfigure`, { values: { title: 'new', token: 'token-new-2' } }), 120_000);
  assert.equal(again.state, 'succeeded', again.log.join('\n'));
  assert.deepEqual(fileValues(stackDir()), { title: 'new', token: 'token-new-2' });
  assert.deepEqual(await containerValues(api, APP), { title: 'new', token: 'token-new-2', state: 'running' });

  const del = await api.waitJob(await startJob(api, 'DELETE', `/api/stacks/${APP}`));
  assert.equal(del.state, 'succeeded', del.log.join('\n'));
});

test('the engine hangs (accepts and never answers): the reads answer with the same codes instead of waiting forever', async () => {
  const p = proxy as SocketProxy;
  await p.restore();
  await install();
  p.stall();
  try {
    const [list, one, containers] = await Promise.all([
      answers('GET /api/stacks', api.get<{ name: string; status: string; warning: string }[]>('/api/stacks')),
      answers(`GET /api/stacks/${APP}`, api.get<{ status: string; warning: string }>(`/api/stacks/${APP}`)),
      answers('GET /api/containers', api.get<{ code: string; detail: string }>('/api/containers')),
    ]);
    const row = list.body.find((s) => s.name === APP);
    assert.deepEqual({ status: list.status, state: row?.status, warning: row?.warning }, { status: 200, state: 'unknown', warning: 'engine_unreachable' });
    assert.deepEqual(
      { status: one.status, state: one.body.status, warning: one.body.warning },
      { status: 200, state: 'unknown', warning: 'engine_unreachable' },
    );
    assert.equal(containers.status, 502, JSON.stringify(containers.body));
    assert.equal(containers.body.code, 'engine_unreachable');
    assert.match(containers.body.detail, /^the container engine did not answer within \d+ s$/);
  } finally {
    await p.restore();
  }
  const listed = await api.get<{ name: string; status: string; warning: string | null }[]>('/api/stacks');
  assert.deepEqual(
    listed.body.filter((s) => s.name === APP).map((s) => [s.status, s.warning]),
    [['running', null]],
    'once the engine answers again, so does the list',
  );
  const del = await api.waitJob(await startJob(api, 'DELETE', `/api/stacks/${APP}`));
  assert.equal(del.state, 'succeeded', del.log.join('\n'));
});
