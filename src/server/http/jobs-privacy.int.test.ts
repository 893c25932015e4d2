import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiClient } from '../../../test/helpers/client.ts';
import { startTestServer, type TestServer } from '../../../test/helpers/server.ts';

// Issue 12 item 11: who started a job and from which address is shown to admins only.
const PASSWORD = 'correct-horse-battery';
let server: TestServer;
const as: Record<'admin' | 'operator' | 'viewer', ApiClient> = {} as never;

before(async () => {
  server = await startTestServer();
  as.admin = new ApiClient(server.url);
  await as.admin.loginAs('admin', PASSWORD);
  for (const role of ['operator', 'viewer'] as const) {
    assert.equal((await as.admin.post('/api/users', { name: role, password: PASSWORD, role })).status, 201);
    as[role] = new ApiClient(server.url);
    await as[role].loginAs(role, PASSWORD);
  }
});
after(() => server.close());

test('jobs name their user and client address to admins, and to nobody else', async () => {
  // A sync of a repo nobody serves: a real job that fails quickly.
  const add = await as.admin.post<{ job: { id: string } }>('/api/repos', { name: 'Gone', url: 'http://localhost:9/none.git' });
  assert.equal(add.status, 202, JSON.stringify(add.body));
  await as.admin.waitJob(add.body.job.id);
  const mine = (await as.admin.get<Record<string, unknown>[]>('/api/jobs')).body.find((j) => j.id === add.body.job.id);
  assert.equal(mine?.user, 'admin');
  assert.equal(mine?.ip, '127.0.0.1');
  for (const role of ['operator', 'viewer'] as const) {
    const list = await as[role].get<Record<string, unknown>[]>('/api/jobs');
    const one = await as[role].get<Record<string, unknown>>(`/api/jobs/${add.body.job.id}`);
    for (const job of [...list.body, one.body]) {
      assert.ok(!('user' in job) && !('ip' in job) && !('user_name' in job), `${role} sees ${JSON.stringify(job)}`);
      assert.ok(!JSON.stringify(job).includes('127.0.0.1'), `${role} sees an address`);
    }
  }
});
