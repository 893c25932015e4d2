import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { contains } from '../../src/shared/cidr.ts';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// Issue 13 item 7: the engine's default address pools run out near 30 compose networks. Kade gives every
// app network a block of its own pool instead, so 40 installs work whatever the engine's pools are, and a
// pool that is full is said in plain words before compose runs.
const execFileP = promisify(execFile);
const POOL = '10.252.0.0/20';
const COUNT = 40;
let git: GitServer;
let kade: TestServer;
let small: TestServer;
let api: ApiClient;

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  kade = await startTestServer({ env: { SVC_APP_SUBNET_POOL: POOL } });
  api = new ApiClient(kade.url);
  await api.loginAs();
  await api.addSyncedRepo('basic', git.url('basic'));
});

after(async () => {
  await kade?.close();
  await small?.close();
  await git?.close();
  await cleanupLabelled();
});

async function install(client: ApiClient, name: string, port: number) {
  const r = await client.post<{ job: { id: string } }>('/api/store/install', { repo: 'basic', app: 'hello', name, values: { port, message: name } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return client.waitJob(r.body.job.id, 300_000);
}

test(`${COUNT} apps install, each network with a block of Kade's pool and none from the engine's`, async () => {
  const names = Array.from({ length: COUNT }, (_, i) => `kadetest-pool-${String(i).padStart(2, '0')}`);
  for (let i = 0; i < names.length; i += 8) {
    const batch = names.slice(i, i + 8);
    const jobs = await Promise.all(batch.map((n, k) => install(api, n, 18400 + i + k)));
    for (const [k, j] of jobs.entries()) assert.equal(j.state, 'succeeded', `${batch[k]}: ${j.log.join('\n')}`);
  }
  const { stdout } = await execFileP('docker', [
    'network',
    'inspect',
    '--format',
    '{{.Name}} {{(index .IPAM.Config 0).Subnet}}',
    ...names.map((n) => `${n}_default`),
  ]);
  const subnets = stdout
    .trim()
    .split('\n')
    .map((l) => l.split(' ')[1] ?? '');
  assert.equal(subnets.length, COUNT);
  assert.equal(new Set(subnets).size, COUNT, 'no two apps share a block');
  for (const s of subnets) assert.ok(contains(POOL, s.split('/')[0] ?? ''), `${s} lies in ${POOL}`);
  const list = await api.get<{ name: string; status: string }[]>('/api/stacks');
  assert.equal(list.body.filter((s) => names.includes(s.name) && s.status === 'running').length, COUNT);
});

test('a full pool is refused in plain words naming the pool and what to change', async () => {
  small = await startTestServer({ env: { SVC_APP_SUBNET_POOL: '10.253.0.0/26' } });
  const client = new ApiClient(small.url);
  await client.loginAs();
  await client.addSyncedRepo('basic', git.url('basic'));
  const first = await install(client, 'kadetest-small-a', 18480);
  assert.equal(first.state, 'succeeded', first.log.join('\n'));
  const second = await install(client, 'kadetest-small-b', 18481);
  assert.equal(second.state, 'failed');
  assert.match(second.error ?? '', /address pool 10\.253\.0\.0\/26 has no free \/26 block left.*SVC_APP_SUBNET_POOL/);
});
