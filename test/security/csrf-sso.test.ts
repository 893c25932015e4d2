import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// CSRF and proxy SSO, generated from the route table: every mutating route that needs a session is
// tried the ways a cross-site page or a stolen token would try it, and must refuse before acting.
// The refusals come from the guard, so nothing here changes anything whatever the route would do.
const PASSWORD = 'correct-horse-battery';
let server: TestServer;
let admin: ApiClient;
let other: ApiClient;
let mutating: { method: string; path: string }[];

before(async () => {
  server = await startTestServer({ env: { SVC_AUTH_PROXY_TRUSTED: '10.9.9.9', SVC_AUTH_PROXY_HEADER: 'Remote-User', SVC_AUTH_PROXY_ROLE: 'admin' } });
  admin = new ApiClient(server.url);
  await admin.loginAs('admin', PASSWORD);
  assert.equal((await admin.post('/api/users', { name: 'other', password: PASSWORD, role: 'admin' })).status, 201);
  other = new ApiClient(server.url);
  await other.loginAs('other', PASSWORD);
  const doc = (await admin.get('/api/openapi.json')).body as { paths: Record<string, Record<string, Record<string, unknown>>> };
  mutating = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([m, op]) => !['get', 'head'].includes(m) && op['x-kade-access'] !== 'public')
      .map(([m]) => ({ method: m.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'x') })),
  );
});
after(() => server.close());

const attempts: [string, () => Record<string, string>, string][] = [
  ['no token', () => ({ 'content-type': 'application/json' }), '{}'],
  ['a wrong token', () => ({ 'content-type': 'application/json', 'X-CSRF-Token': 'not-the-token' }), '{}'],
  ["another session's token", () => ({ 'content-type': 'application/json', 'X-CSRF-Token': other.csrf }), '{}'],
  ['a foreign Origin without the token', () => ({ 'content-type': 'application/json', Origin: 'https://attacker.example' }), '{}'],
  ['a text/plain body (a form post needs no preflight)', () => ({ 'content-type': 'text/plain' }), '{"username":"x"}'],
  ['an empty token', () => ({ 'content-type': 'application/json', 'X-CSRF-Token': '' }), '{}'],
];

for (const [what, headers, body] of attempts) {
  test(`every mutating route refuses ${what} with 403 csrf`, async () => {
    assert.ok(mutating.length > 30, `only ${mutating.length} mutating routes`);
    for (const r of mutating) {
      const res = await fetch(server.url + r.path, { method: r.method, headers: { cookie: admin.cookie, ...headers() }, body });
      const problem = (await res.json()) as { code?: string };
      assert.equal(res.status, 403, `${r.method} ${r.path}: ${res.status} ${JSON.stringify(problem)}`);
      assert.equal(problem.code, 'csrf', `${r.method} ${r.path}`);
    }
  });
}

test('the SSO header from an address that is not the trusted proxy signs nobody in, in any spelling', async () => {
  for (const headers of [
    { 'Remote-User': 'admin' },
    { 'remote-user': 'admin' },
    { 'REMOTE-USER': 'other' },
    { 'Remote-User': '' },
    { 'X-Forwarded-For': '10.9.9.9', 'Remote-User': 'admin' },
  ]) {
    const status = await fetch(`${server.url}/api/auth/status`, { headers });
    assert.equal(((await status.json()) as { user: unknown }).user, null, JSON.stringify(headers));
    const write = await fetch(`${server.url}/api/settings`, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(write.status, 401, JSON.stringify(headers));
  }
});
