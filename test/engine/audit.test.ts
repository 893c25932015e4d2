import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { useEngineSuite } from '../helpers/engine-suite.ts';
import { freePort } from './contract-helpers.ts';

// App operations that succeed against the real engine each leave their audit entry.
const STACK = 'kadetest-audit';
const INSTALLED = 'kadetest-audit-store';

const suite = useEngineSuite();

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

async function succeeds(path: string, method: 'POST' | 'DELETE' = 'POST', body?: unknown): Promise<void> {
  const r = await suite.api.call(method, path, body);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await suite.api.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
}

const entries = async (query: string) =>
  (await suite.api.get(`/api/audit${query}`)).body.entries as { action: string; target: string; status: string; user: string; source: string }[];

test('start, stop, restart and delete of an app are entries with the acting user', async () => {
  addStack(suite.kade.baseDir, STACK);
  // A folder made by hand runs once an admin accepted its files: that is an entry too.
  await suite.api.acceptFiles(STACK);
  await succeeds(`/api/stacks/${STACK}/start`);
  await succeeds(`/api/stacks/${STACK}/stop`);
  await succeeds(`/api/stacks/${STACK}/restart`);
  await succeeds(`/api/stacks/${STACK}`, 'DELETE');
  const got = await entries(`?source=stacks&q=${STACK}`);
  assert.deepEqual(
    got.map((e) => [e.action, e.target, e.status, e.user]),
    ['delete', 'restart', 'stop', 'start', 'files_accept'].map((a) => [a, STACK, 'ok', 'admin']),
  );
});

test('a store install that comes up is an entry install of source store', async () => {
  const add = await suite.api.post('/api/repos', { name: 'Basic', url: suite.git.url('basic'), branch: 'main', subdirectory: 'apps' });
  assert.equal((await suite.api.waitJob(add.body.job.id)).state, 'succeeded');
  const values = { port: await freePort(), message: 'audited', admin_password: 'pw-SECRET-engine' };
  await succeeds('/api/store/install', 'POST', { repo: 'basic', app: 'hello', name: INSTALLED, values });
  const got = await entries('?source=store');
  assert.deepEqual(
    got.map((e) => [e.action, e.target, e.status, e.user]),
    [['install', INSTALLED, 'ok', 'admin']],
  );
  assert.equal(JSON.stringify(await suite.api.get('/api/audit?limit=200')).includes('SECRET'), false);
  await succeeds(`/api/stacks/${INSTALLED}?remove_data=1`, 'DELETE');
});
