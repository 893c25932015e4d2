import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiClient } from '../../../test/helpers/client.ts';
import { startTestServer, type TestServer } from '../../../test/helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.close();
});

const isProblem = (r: { status: number; body: any; headers: Headers }, status: number, code: string) => {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.headers.get('content-type'), 'application/problem+json');
  assert.equal(r.body.code, code);
  assert.equal(r.body.status, status);
  assert.equal(typeof r.body.detail, 'string');
};

test('/healthz answers with the VERSION file and needs no login', async () => {
  const r = await new ApiClient(server.url).get('/healthz');
  assert.equal(r.status, 200);
  assert.match(r.body.version, /^v\d+\.\d+\.\d{2}(-beta)?$/);
  assert.equal(r.body.status, 'ok');
});

test('the OpenAPI document lists every route with its declared access', async () => {
  const r = await new ApiClient(server.url).get('/api/openapi.json');
  assert.equal(r.status, 200);
  assert.equal(r.body.openapi, '3.1.0');
  const ops = Object.entries(r.body.paths as Record<string, Record<string, any>>).flatMap(([p, m]) =>
    Object.entries(m).map(([method, op]) => ({ p, method, op })),
  );
  assert.ok(ops.length >= 15);
  for (const { p, method, op } of ops) assert.ok(['public', 'viewer', 'operator', 'admin'].includes(op['x-kade-access']), `${method} ${p} declares no access`);
  assert.ok(r.body.paths['/api/store/install'].post.requestBody);
});

test('every /api route needs a session; errors are problem+json with stable codes', async () => {
  const anon = new ApiClient(server.url);
  isProblem(await anon.get('/api/stacks'), 401, 'unauthenticated');
  isProblem(await anon.get('/api/no-such-route'), 404, 'not_found');
  isProblem(await anon.call('POST', '/api/auth/login', '{"username":', { 'content-type': 'application/json' }), 400, 'invalid_json');
  isProblem(await anon.post('/api/auth/login', { username: 'x' }), 400, 'validation');
});

test('first account from setup, then login, CSRF on mutations, logout ends the session', async () => {
  const c = new ApiClient(server.url);
  let st = await c.get('/api/auth/status');
  assert.deepEqual(st.body, { setup_required: true, user: null, csrf: null, sso: false });
  const badName = await c.post('/api/auth/setup', { username: 'Bad Name', password: 'long-enough-pw' });
  isProblem(badName, 400, 'invalid_name');
  // The refused name comes along, so the interface says which one (issue #24 item 16).
  assert.deepEqual(badName.body.params, { name: 'Bad Name' });
  const setup = await c.post('/api/auth/setup', { username: 'admin', password: 'long-enough-pw' });
  assert.equal(setup.status, 201);
  assert.deepEqual(setup.body.user, { name: 'admin', role: 'admin' });
  const cookie = setup.headers.get('set-cookie') ?? '';
  assert.match(cookie, /^svc_session=/);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  isProblem(await new ApiClient(server.url).post('/api/auth/setup', { username: 'second', password: 'long-enough-pw' }), 409, 'setup_done');

  st = await c.get('/api/auth/status');
  assert.equal(st.body.user.name, 'admin');
  assert.equal(st.body.csrf, setup.body.csrf);
  assert.equal(st.body.setup_required, false);

  // A mutating request without the token, or with a wrong one, is refused.
  isProblem(await c.call('POST', '/api/stacks/x/start', {}, { 'X-CSRF-Token': '' }), 403, 'csrf');
  isProblem(await c.call('POST', '/api/stacks/x/start', {}, { 'X-CSRF-Token': 'wrong' }), 403, 'csrf');
  c.csrf = setup.body.csrf;
  isProblem(await c.post('/api/stacks/x/start'), 404, 'not_found');
  isProblem(await c.post('/api/stacks/..%2F..%2Fetc/start'), 400, 'invalid_name');

  const out = await c.post('/api/auth/logout');
  assert.equal(out.status, 204);
  isProblem(await c.get('/api/stacks'), 401, 'unauthenticated');

  const wrong = await new ApiClient(server.url).post('/api/auth/login', { username: 'admin', password: 'wrong-password' });
  const unknown = await new ApiClient(server.url).post('/api/auth/login', { username: 'nobody', password: 'wrong-password' });
  isProblem(wrong, 401, 'bad_credentials');
  assert.deepEqual({ ...unknown.body }, { ...wrong.body }, 'unknown user and wrong password answer alike');
  const again = new ApiClient(server.url);
  const ok = await again.post('/api/auth/login', { username: 'admin', password: 'long-enough-pw' });
  assert.equal(ok.status, 200);
});

test('bad input never gives 500: oversized bodies, wrong types, hostile git URLs', async () => {
  const c = new ApiClient(server.url);
  await c.loginAs('admin', 'long-enough-pw');
  isProblem(await c.post('/api/repos', { name: 'x', url: 'ext::sh -c touch% /tmp/pwned' }), 400, 'invalid_git_url');
  isProblem(await c.post('/api/repos', { name: 'x', url: 'file:///etc' }), 400, 'invalid_git_url');
  isProblem(await c.post('/api/repos', { name: 'x', url: '--upload-pack=touch /tmp/x' }), 400, 'invalid_git_url');
  isProblem(await c.post('/api/repos', { name: 'x', url: 'https://example.invalid/r.git', subdirectory: '../../etc' }), 400, 'validation');
  isProblem(await c.post('/api/store/install', { repo: 'r', app: 'a', name: '../evil', values: {} }), 400, 'invalid_name');
  isProblem(await c.post('/api/store/install', { repo: 'r', app: 'a', name: 'ok', values: {} }), 404, 'not_found');
  isProblem(await c.call('POST', '/api/repos', 'x'.repeat(1024 * 1024 + 1024), { 'content-type': 'application/json' }), 413, 'payload_too_large');
  isProblem(await c.get('/api/jobs/..%2F..%2Fetc%2Fpasswd/log'), 404, 'not_found');
  isProblem(await c.get('/api/jobs/not-a-job'), 404, 'not_found');
});

test('a job is readable by offset and as a live event stream that ends with its state', async () => {
  const c = new ApiClient(server.url);
  await c.loginAs('admin', 'long-enough-pw');
  // A repo on a closed loopback port: the sync job fails fast, twice (the retry with a fresh cache).
  const add = await c.post('/api/repos', { name: 'Closed', url: 'http://127.0.0.1:9/none.git' });
  assert.equal(add.status, 202);
  const id = add.body.job.id;
  const res = await fetch(`${server.url}/api/jobs/${id}/log?follow=1`, { headers: { cookie: c.cookie } });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const text = await res.text();
  const lines = [...text.matchAll(/^event: line\ndata: (.*)$/gm)].map((m) => m[1]);
  assert.match(text, /event: end\ndata: failed/);
  const polled = await c.get(`/api/jobs/${id}/log?offset=0`);
  assert.deepEqual(lines, polled.body.lines);
  assert.equal(polled.body.done, true);
  const tail = await c.get(`/api/jobs/${id}/log?offset=${polled.body.next_offset}`);
  assert.deepEqual(tail.body.lines, []);
  const job = await c.get(`/api/jobs/${id}`);
  assert.equal(job.body.state, 'failed');
  assert.match(job.body.error, /git fetch failed/);
  const repos = await c.get('/api/repos');
  assert.match(repos.body.find((r: { id: string }) => r.id === 'closed').status.error, /git fetch failed/);
  // One repo by id, with an empty import report while nothing was fetched; an unknown id is a 404.
  const one = await c.get('/api/repos/closed');
  assert.equal(one.status, 200);
  assert.deepEqual(one.body.import, { format: 'kade', found: 0, imported: 0, refused: [], notes: [], with_powers: 0 });
  isProblem(await c.get('/api/repos/nope'), 404, 'not_found');
});
