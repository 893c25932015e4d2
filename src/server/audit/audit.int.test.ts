import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { type KadeWithGit, startKadeWithGit } from '../../../test/helpers/basic-kade.ts';
import { ApiClient } from '../../../test/helpers/client.ts';
import type { GitServer } from '../../../test/helpers/git-server.ts';
import type { TestServer } from '../../../test/helpers/server.ts';

// Every change a user makes through HTTP leaves an entry. The engine points at a socket that does
// not exist, so installs and app operations fail fast here; test/engine/audit.test.ts covers them
// succeeding against a real engine.
const PASSWORD = 'correct-horse-battery';
const TOKEN = 'tok-SECRET-4711';
const APP_PASSWORD = 'pw-SECRET-0815';

let kade: KadeWithGit | undefined;
let git: GitServer;
let server: TestServer;
let admin: ApiClient;

before(async () => {
  kade = await startKadeWithGit(
    { basic: 'test/fixtures/repos/basic' },
    { password: PASSWORD, server: { env: { DOCKER_HOST: 'unix:///nonexistent/kade-audit-test.sock' } } },
  );
  ({ git, server, api: admin } = kade);
});
after(async () => {
  await kade?.close();
});

type Entry = {
  user: string | null;
  ip: string | null;
  source: string;
  action: string;
  target: string | null;
  status: string;
  detail: Record<string, unknown> | null;
};
const audit = async (
  query = '',
): Promise<{ entries: Entry[]; total: number; unfiltered_total: number; facets: Record<string, { value: string; count: number }[]> }> => {
  const r = await admin.get(`/api/audit${query}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
};

test('creating the first account is an entry', async () => {
  const a = await audit('?source=auth&action=add');
  assert.equal(a.entries.length, 1);
  assert.equal(a.entries[0]?.target, 'admin');
  assert.equal(a.entries[0]?.ip, '127.0.0.1');
});

test('a login and a failed login are entries with the client address; the failed one names no user', async () => {
  await new ApiClient(server.url).loginAs('admin', PASSWORD);
  const wrong = await new ApiClient(server.url).post('/api/auth/login', { username: 'admin', password: 'wrong-password' });
  assert.equal(wrong.status, 401);
  const a = await audit('?action=login');
  const failed = a.entries.find((e) => e.status === 'failed');
  const ok = a.entries.find((e) => e.status === 'ok');
  assert.deepEqual(
    { user: failed?.user, target: failed?.target, ip: failed?.ip, source: failed?.source, detail: failed?.detail },
    { user: null, target: 'admin', ip: '127.0.0.1', source: 'auth', detail: null },
  );
  assert.equal(ok?.user, 'admin');
  assert.equal(ok?.ip, '127.0.0.1');
});

test('adding, editing and deleting a repo are entries add, edit and delete', async () => {
  const add = await admin.post('/api/repos', { name: 'Basic', url: git.url('basic'), branch: 'main', subdirectory: 'apps', token: TOKEN });
  assert.equal(add.status, 202, JSON.stringify(add.body));
  assert.equal((await admin.waitJob(add.body.job.id)).state, 'succeeded');
  const edit = await admin.put('/api/repos/basic', { name: 'Basic', branch: 'main', subdirectory: 'apps', token: `${TOKEN}-new` });
  assert.equal(edit.status, 202, JSON.stringify(edit.body));
  assert.equal((await admin.waitJob(edit.body.job.id)).state, 'succeeded');
  const spare = await admin.post('/api/repos', { name: 'Spare', url: git.url('basic'), branch: 'main', subdirectory: '' });
  await admin.waitJob(spare.body.job.id);
  assert.equal((await admin.del('/api/repos/spare')).status, 204);
  const a = await audit('?source=catalogue');
  assert.deepEqual(
    a.entries.map((e) => [e.action, e.target, e.user, e.status]),
    [
      ['delete', 'spare', 'admin', 'ok'],
      ['add', 'spare', 'admin', 'ok'],
      ['edit', 'basic', 'admin', 'ok'],
      ['add', 'basic', 'admin', 'ok'],
    ],
  );
});

test('a store install is an entry of source store, and its failed job one more', async () => {
  const r = await admin.post('/api/store/install', { repo: 'basic', app: 'hello', name: 'audited', values: { message: 'hi', admin_password: APP_PASSWORD } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.equal((await admin.waitJob(r.body.job.id)).state, 'failed');
  const store = await audit('?source=store');
  assert.deepEqual(
    store.entries.map((e) => [e.action, e.target, e.user, e.status, e.detail]),
    [['install', 'audited', 'admin', 'failed', { repo: 'basic', app: 'hello' }]],
  );
  const jobs = await audit('?action=job_failed&q=stack.install');
  assert.equal(jobs.entries[0]?.target, 'audited');
});

test('an app operation whose job fails leaves a job_failed entry naming the operation', async () => {
  const r = await admin.post('/api/stacks/audited/start');
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.equal((await admin.waitJob(r.body.job.id)).state, 'failed');
  const a = await audit('?action=job_failed&q=stack.start');
  assert.equal(a.entries.length, 1);
  assert.deepEqual([a.entries[0]?.target, a.entries[0]?.user, a.entries[0]?.detail?.kind], ['audited', 'admin', 'stack.start']);
});

test('secret-looking detail keys never reach an entry, whatever an event carries', async () => {
  server.kade.events.emit({
    type: 'stack.credentials_viewed',
    actor: { user: 'admin', role: 'admin', ip: '10.1.2.3' },
    source: 'stacks',
    target: 'audited',
    status: 'ok',
    detail: {
      username: 'shown',
      password: 'p-SECRET-1',
      api_token: 't-SECRET-2',
      clientSecret: 's-SECRET-3',
      private_key: 'k-SECRET-4',
      password_hash: 'h-SECRET-5',
      url: 'https://bob:u-SECRET-6@example.com/x',
    },
  });
  const a = await audit('?action=credentials_view');
  assert.deepEqual(a.entries[0]?.detail, { username: 'shown', url: 'https://***@example.com/x' });
  const all = JSON.stringify(await audit('?limit=200'));
  for (const secret of ['SECRET', PASSWORD, 'wrong-password']) assert.equal(all.includes(secret), false, `${secret} leaked into the audit log`);
});

test('filters, free text with wildcards, period, paging and facets over HTTP', async () => {
  const all = await audit('?limit=200');
  assert.ok(all.total >= 8);
  assert.equal(all.unfiltered_total, all.total);
  const p1 = await audit('?limit=2');
  const p2 = await audit('?limit=2&offset=2');
  assert.equal(p1.entries.length, 2);
  assert.deepEqual([...p1.entries, ...p2.entries], all.entries.slice(0, 4));
  assert.equal((await audit('?q=%25')).total, 0);
  assert.equal((await audit('?q=AUDITED')).total, (await audit('?q=audited')).total);
  assert.equal((await audit('?period=24h')).total, all.total);
  const future = await audit('?from=2999-01-01');
  assert.deepEqual([future.total, future.entries.length, future.unfiltered_total], [0, 0, all.total]);
  const filtered = await audit('?source=auth');
  assert.ok(filtered.entries.every((e) => e.source === 'auth'));
  // The source facet ignores the source filter itself, so switching to another source stays possible.
  assert.deepEqual(filtered.facets.source?.map((f) => f.value).sort(), ['auth', 'catalogue', 'jobs', 'stacks', 'store']);
  assert.ok(filtered.facets.action?.every((f) => ['add', 'login'].includes(f.value)));
  assert.deepEqual(
    filtered.facets.status?.map((f) => f.value),
    ['ok', 'failed'],
  );
});

test('bad queries are 400 problems; the log is for admins only', async () => {
  for (const q of ['?limit=201', '?limit=0', '?offset=-1', '?period=1y', '?from=yesterday', '?status=maybe']) {
    const r = await admin.get(`/api/audit${q}`);
    assert.equal(r.status, 400, q);
    assert.equal(r.body.code, 'validation');
  }
  assert.equal((await new ApiClient(server.url).get('/api/audit')).status, 401);
  const doc = await admin.get('/api/openapi.json');
  assert.equal(doc.body.paths['/api/audit'].get['x-kade-access'], 'admin');
});

test('a failing audit write does not break the operation that emitted the event', async () => {
  const logins = async () => (await audit('?action=login')).total;
  const beforeOutage = await logins();
  // A second connection takes the table away under the running server, as a broken disk or a lock would.
  const db = new Database(join(server.stateDir, 'kade.db'));
  db.exec('ALTER TABLE audit RENAME TO audit_away');
  try {
    const c = new ApiClient(server.url);
    await c.loginAs('admin', PASSWORD);
    assert.equal((await c.get('/api/auth/status')).body.user.name, 'admin');
  } finally {
    db.exec('ALTER TABLE audit_away RENAME TO audit');
    db.close();
  }
  // The login during the outage really went unrecorded, and writing works again afterwards.
  assert.equal(await logins(), beforeOutage);
  await new ApiClient(server.url).loginAs('admin', PASSWORD);
  assert.equal(await logins(), beforeOutage + 1);
});
