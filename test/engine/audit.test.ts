import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// App operations that succeed against the real engine each leave their audit entry.
const STACK = 'kadetest-audit';
const INSTALLED = 'kadetest-audit-store';

let git: GitServer;
let kade: TestServer;
let api: ApiClient;

/** A stack folder made by hand, as compose would run it: one tiny labelled container. */
function addStack(baseDir: string, name: string): void {
  const dir = join(baseDir, 'stacks', name);
  mkdirSync(dir, { recursive: true });
  const compose = [
    'services:',
    '  sleeper:',
    '    image: kade-test/busybox:1',
    '    pull_policy: never',
    '    init: true',
    '    command: ["sleep", "3600"]',
    '    labels:',
    '      kade.test: "1"',
    '',
  ];
  writeFileSync(join(dir, 'docker-compose.yml'), compose.join('\n'));
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function succeeds(path: string, method: 'POST' | 'DELETE' = 'POST', body?: unknown): Promise<void> {
  const r = await api.call(method, path, body);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await api.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
}

const entries = async (query: string) =>
  (await api.get(`/api/audit${query}`)).body.entries as { action: string; target: string; status: string; user: string; source: string }[];

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  kade = await startTestServer();
  api = new ApiClient(kade.url);
  await api.loginAs();
});

after(async () => {
  await kade?.close();
  await git?.close();
  await cleanupLabelled();
});

test('start, stop, restart and delete of an app are entries with the acting user', async () => {
  addStack(kade.baseDir, STACK);
  await succeeds(`/api/stacks/${STACK}/start`);
  await succeeds(`/api/stacks/${STACK}/stop`);
  await succeeds(`/api/stacks/${STACK}/restart`);
  await succeeds(`/api/stacks/${STACK}`, 'DELETE');
  const got = await entries(`?source=stacks&q=${STACK}`);
  assert.deepEqual(
    got.map((e) => [e.action, e.target, e.status, e.user]),
    ['delete', 'restart', 'stop', 'start'].map((a) => [a, STACK, 'ok', 'admin']),
  );
});

test('a store install that comes up is an entry install of source store', async () => {
  const add = await api.post('/api/repos', { name: 'Basic', url: git.url('basic'), branch: 'main', subdirectory: 'apps' });
  assert.equal((await api.waitJob(add.body.job.id)).state, 'succeeded');
  const values = { port: await freePort(), message: 'audited', admin_password: 'pw-SECRET-engine' };
  await succeeds('/api/store/install', 'POST', { repo: 'basic', app: 'hello', name: INSTALLED, values });
  const got = await entries('?source=store');
  assert.deepEqual(
    got.map((e) => [e.action, e.target, e.status, e.user]),
    [['install', INSTALLED, 'ok', 'admin']],
  );
  assert.equal(JSON.stringify(await api.get('/api/audit?limit=200')).includes('SECRET'), false);
  await succeeds(`/api/stacks/${INSTALLED}?remove_data=1`, 'DELETE');
});
