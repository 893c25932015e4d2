import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/server/config/config.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// Issue 12 items 8, 9, 10 and 12, and issue 11 item 5: what a browser, a proxy and a rebinding page
// meet at Kade's front door, tested on a real Kade over HTTP.
const PASSWORD = 'correct-horse-battery';

/** A request with a Host header of our choice (fetch would not let us set it). */
async function withHost(url: string, host: string, init: { method?: string; body?: string } = {}): Promise<{ status: number; body: string }> {
  const { request } = await import('node:http');
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, method: init.method ?? 'GET', headers: { host, 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('before setup: only this machine may claim the first account (DNS rebinding)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { SVC_ALLOWED_HOSTS: 'kade.home.arpa' } });
  });
  after(() => server.close());

  test('a foreign Host is refused with a problem that says what to do; own addresses and configured names pass', async () => {
    const foreign = await withHost(`${server.url}/api/auth/status`, 'attacker.example:8420');
    assert.equal(foreign.status, 403);
    assert.match(foreign.body, /host_not_allowed/);
    assert.match(foreign.body, /SVC_ALLOWED_HOSTS/);
    const claim = await withHost(`${server.url}/api/auth/setup`, 'attacker.example', {
      method: 'POST',
      body: JSON.stringify({ username: 'evil', password: PASSWORD }),
    });
    assert.equal(claim.status, 403, 'a rebinding page cannot create the admin account');
    for (const host of ['127.0.0.1', '192.0.2.10:8420', '[2001:db8::1]:8420', 'localhost:8420', 'kade.home.arpa:8420']) {
      assert.equal((await withHost(`${server.url}/api/auth/status`, host)).status, 200, host);
    }
    assert.equal((await withHost(`${server.url}/healthz`, 'attacker.example')).status, 200, 'the health check answers anyone');
  });

  test('once the first account exists, setup is refused before any work, whatever the body', async () => {
    const admin = new ApiClient(server.url);
    await admin.loginAs('admin', PASSWORD);
    const again = await new ApiClient(server.url).post('/api/auth/setup', { username: 'second', password: PASSWORD });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'setup_done');
    // Not even the body is validated: the refusal comes first (no password hashing for anyone).
    const junk = await new ApiClient(server.url).call('POST', '/api/auth/setup', '{not json');
    assert.equal(junk.status, 409);
    assert.equal(junk.body.code, 'setup_done');
  });
});

describe('answers carry the headers a browser needs to keep them private', () => {
  let server: TestServer;
  let admin: ApiClient;
  before(async () => {
    server = await startTestServer();
    admin = new ApiClient(server.url);
    await admin.loginAs('admin', PASSWORD);
  });
  after(() => server.close());

  test('API answers: no-store and nosniff; pages: a CSP without inline script, no framing, a referrer policy', async () => {
    for (const path of ['/api/auth/status', '/api/settings', '/api/stacks', '/api/nope']) {
      const r = await admin.get(path);
      assert.equal(r.headers.get('cache-control'), 'no-store', path);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
    }
    const page = await fetch(`${server.url}/`);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.ok(page.headers.get('referrer-policy'));
    const html = await page.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'the page has an inline script the CSP would block');
  });

  test('every mutating route refuses a body over the limit (also sent without a length) with 413, never 500', async () => {
    const doc = (await admin.get('/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const big = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) });
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods).filter((m) => ['post', 'put', 'patch'].includes(m))) {
        const concrete = path.replace(/\{[^}]+\}/g, 'x');
        const r = await fetch(server.url + concrete, {
          method: method.toUpperCase(),
          headers: { cookie: admin.cookie, 'X-CSRF-Token': admin.csrf, 'content-type': 'application/json' },
          body: new Blob([big]).stream(),
          duplex: 'half',
        } as RequestInit);
        assert.equal(r.status, 413, `${method} ${path}`);
        checked++;
      }
    }
    assert.ok(checked > 20, `only ${checked} mutating routes found`);
  });
});

describe('behind a trusted proxy: single sign-on from the environment, HTTPS, the Secure cookie', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      env: { SVC_AUTH_PROXY_TRUSTED: '127.0.0.1', SVC_AUTH_PROXY_HEADER: 'Remote-User', SVC_AUTH_PROXY_ROLE: 'operator' },
    });
    await new ApiClient(server.url).loginAs('admin', PASSWORD);
  });
  after(() => server.close());

  test('the proxy header signs a user in with the role from SVC_AUTH_PROXY_ROLE; a local account keeps its own role', async () => {
    const sso = await new ApiClient(server.url).call('GET', '/api/auth/status', undefined, { 'Remote-User': 'alice' });
    assert.deepEqual(sso.body.user, { name: 'alice', role: 'operator' });
    assert.equal(sso.body.sso, true);
    const local = await new ApiClient(server.url).call('GET', '/api/auth/status', undefined, { 'Remote-User': 'admin' });
    assert.deepEqual(local.body.user, { name: 'admin', role: 'admin' });
    const admin = new ApiClient(server.url);
    await admin.loginAs('admin', PASSWORD);
    const settings = await admin.get('/api/settings');
    assert.equal(settings.body.AUTH.proxy_header, 'Remote-User');
    assert.deepEqual(settings.body.AUTH.trusted_proxies, ['127.0.0.1']);
    assert.equal(settings.body.AUTH.proxy_role, 'operator');
  });

  test('the session cookie is Secure when the trusted proxy says the request came over HTTPS, and not otherwise', async () => {
    const login = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ username: 'admin', password: PASSWORD }),
      });
    const https = await login({ 'X-Forwarded-Proto': 'https' });
    assert.equal(https.status, 200);
    assert.match(https.headers.get('set-cookie') ?? '', /;\s*Secure/i);
    const plain = await login({});
    assert.doesNotMatch(plain.headers.get('set-cookie') ?? '', /;\s*Secure/i);
  });
});

describe('without a trusted proxy', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { SVC_AUTH_PROXY_TRUSTED: '10.9.9.9', SVC_AUTH_PROXY_HEADER: 'Remote-User' } });
    await new ApiClient(server.url).loginAs('admin', PASSWORD);
  });
  after(() => server.close());

  test('the SSO header and X-Forwarded-Proto from another address count for nothing', async () => {
    const r = await new ApiClient(server.url).call('GET', '/api/auth/status', undefined, { 'Remote-User': 'admin' });
    assert.equal(r.body.user, null);
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Forwarded-Proto': 'https' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    assert.doesNotMatch(login.headers.get('set-cookie') ?? '', /;\s*Secure/i);
  });

  test('bad SSO variables stop the start with a message naming the variable', () => {
    const base = { BASE_DIR: '/tmp/kade-never', SVC_DATA: '/tmp/kade-never-data' };
    const cases: [Record<string, string>, string][] = [
      [{ SVC_AUTH_PROXY_TRUSTED: '10.0.0.300' }, 'SVC_AUTH_PROXY_TRUSTED'],
      [{ SVC_AUTH_PROXY_TRUSTED: '10.0.0.1', SVC_AUTH_PROXY_HEADER: 'Bad Header' }, 'SVC_AUTH_PROXY_HEADER'],
      [{ SVC_AUTH_PROXY_HEADER: 'Remote-User' }, 'SVC_AUTH_PROXY_HEADER'],
      [{ SVC_AUTH_PROXY_TRUSTED: '10.0.0.1', SVC_AUTH_PROXY_HEADER: 'Remote-User', SVC_AUTH_PROXY_ROLE: 'root' }, 'SVC_AUTH_PROXY_ROLE'],
    ];
    for (const [env, name] of cases) assert.throws(() => loadConfig({ ...base, ...env }, process.cwd()), new RegExp(name), JSON.stringify(env));
  });
});
