import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { ApiClient } from '../../../test/helpers/client.ts';
import { startTestServer, type TestServer } from '../../../test/helpers/server.ts';

/**
 * Single sign-on through a trusted proxy. All test traffic comes from 127.0.0.1, so "trusted"
 * is proxies ['127.0.0.1'] and "untrusted" is ['10.9.9.9'], an address nothing is sent to.
 */
const PW = 'correct-horse-battery';
const HEADER = 'Remote-User';
let server: TestServer;
let admin: ApiClient;

function setAuth(block: Record<string, unknown> | null): void {
  const db = new Database(join(server.stateDir, 'kade.db'));
  try {
    if (block) db.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES ('AUTH', ?)").run(JSON.stringify(block));
    else db.prepare("DELETE FROM settings WHERE key = 'AUTH'").run();
  } finally {
    db.close();
  }
}
const trusted = (extra: Record<string, unknown> = {}) => setAuth({ proxy_header: HEADER, trusted_proxies: ['127.0.0.1'], proxy_role: 'operator', ...extra });

/** A client that sends the proxy header on every request, as the proxy would. */
function viaProxy(user: string): ApiClient {
  const c = new ApiClient(server.url);
  const call = c.call.bind(c);
  c.call = (method, path, body, headers = {}) => call(method, path, body, { [HEADER]: user, ...headers });
  return c;
}

const status = async (c: ApiClient) => (await c.get('/api/auth/status')).body;

/** A request with the header line sent twice, which fetch cannot do. */
function rawStatus(values: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}/api/auth/status`, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.setHeader(HEADER, values);
    req.on('error', reject);
    req.end();
  });
}

before(async () => {
  server = await startTestServer();
  admin = new ApiClient(server.url);
  await admin.loginAs('admin', PW);
  assert.equal((await admin.post('/api/users', { name: 'carol', password: PW, role: 'viewer' })).status, 201);
});
after(async () => {
  await server.close();
});

test('a trusted proxy logs in its user: proxy_role without a local account, CSRF still required', async () => {
  trusted();
  const dave = viaProxy('dave');
  const s = await status(dave);
  assert.equal(s.sso, true);
  assert.deepEqual(s.user, { name: 'dave', role: 'operator' });
  assert.equal(typeof s.csrf, 'string');
  assert.ok(s.csrf.length >= 32);
  assert.equal((await status(dave)).csrf, s.csrf, 'the token is stable between requests');
  assert.notEqual((await status(viaProxy('erin'))).csrf, s.csrf, 'each user has their own token');

  const noToken = await dave.post('/api/stacks/x/start');
  assert.equal(noToken.body.code, 'csrf');
  dave.csrf = s.csrf;
  assert.equal((await dave.post('/api/stacks/x/start')).body.code, 'not_found', 'past the guard as operator');
  assert.equal((await dave.get('/api/users')).body.code, 'forbidden');
  // Another user's token does not fit.
  const erin = viaProxy('erin');
  erin.csrf = s.csrf;
  assert.equal((await erin.post('/api/stacks/x/start')).body.code, 'csrf');
});

test('a local account of the same name wins, with its role read fresh', async () => {
  trusted({ proxy_role: 'admin' });
  const carol = viaProxy('carol');
  assert.deepEqual((await status(carol)).user, { name: 'carol', role: 'viewer' });
  assert.equal((await admin.put('/api/users/carol', { role: 'operator' })).status, 200);
  assert.deepEqual((await status(carol)).user, { name: 'carol', role: 'operator' });
  assert.deepEqual((await status(viaProxy('admin'))).user, { name: 'admin', role: 'admin' });
  await admin.put('/api/users/carol', { role: 'viewer' });
});

test('a missing or unknown proxy_role never means admin', async () => {
  trusted({ proxy_role: undefined });
  assert.equal((await status(viaProxy('frank'))).user.role, 'viewer');
  trusted({ proxy_role: 'root' });
  assert.equal((await status(viaProxy('frank'))).user.role, 'viewer');
});

test('an untrusted peer is not believed, whatever X-Forwarded-For says', async () => {
  setAuth({ proxy_header: HEADER, trusted_proxies: ['10.9.9.9'], proxy_role: 'admin' });
  const s = (await viaProxy('dave').call('GET', '/api/auth/status', undefined, { 'X-Forwarded-For': '10.9.9.9', 'X-Real-IP': '10.9.9.9' })).body;
  assert.deepEqual({ sso: s.sso, user: s.user }, { sso: false, user: null });
  assert.equal((await viaProxy('dave').get('/api/stacks')).status, 401);
  // Changes apply to the next request: trusting the loopback block switches it on.
  setAuth({ proxy_header: HEADER, trusted_proxies: ['10.9.9.9', '127.0.0.0/8'], proxy_role: 'viewer' });
  assert.equal((await status(viaProxy('dave'))).sso, true);
  setAuth(null);
  assert.equal((await status(viaProxy('dave'))).sso, false);
});

test('an absent, empty or duplicated header falls back to the session cookie', async () => {
  trusted();
  const asAdmin = new ApiClient(server.url);
  await asAdmin.loginAs('admin', PW);
  const plain = await status(asAdmin);
  assert.deepEqual({ sso: plain.sso, user: plain.user }, { sso: false, user: { name: 'admin', role: 'admin' } });
  for (const value of ['', '   ', 'dave, dave', 'dave,erin', 'Not A Name']) {
    const s = (await asAdmin.call('GET', '/api/auth/status', undefined, { [HEADER]: value })).body;
    assert.deepEqual({ sso: s.sso, user: s.user?.name }, { sso: false, user: 'admin' }, `header '${value}'`);
    const anon = (await new ApiClient(server.url).call('GET', '/api/auth/status', undefined, { [HEADER]: value })).body;
    assert.equal(anon.user, null, `header '${value}' without a cookie`);
  }
  for (const values of [
    ['dave', 'dave'],
    ['dave', 'erin'],
  ]) {
    const s = await rawStatus(values);
    assert.deepEqual({ sso: s.sso, user: s.user }, { sso: false, user: null }, `header sent twice: ${values.join(' / ')}`);
  }
  assert.equal((await rawStatus(['dave'])).sso, true, 'the raw request itself works');
});

test('a broken AUTH block switches SSO off instead of failing requests', async () => {
  for (const block of [
    { proxy_header: 'Remote User', trusted_proxies: ['127.0.0.1'] },
    { proxy_header: HEADER, trusted_proxies: [] },
    { proxy_header: HEADER },
    { trusted_proxies: 'nonsense' },
  ]) {
    setAuth(block);
    const r = await viaProxy('dave').get('/api/auth/status');
    assert.equal(r.status, 200);
    assert.equal(r.body.sso, false, JSON.stringify(block));
  }
});

test('SSO users without a local password cannot change one', async () => {
  trusted();
  const dave = viaProxy('dave');
  dave.csrf = (await status(dave)).csrf;
  const r = await dave.put('/api/auth/password', { current_password: 'whatever-it-is', new_password: 'a-new-password' });
  assert.equal(r.status, 409);
  assert.equal(r.body.code, 'conflict');
});

test('the SSO CSRF token survives a restart', async () => {
  const root = mkdtempSync(join(tmpdir(), 'kade-sso-'));
  const dirs = { stateDir: join(root, 'state'), baseDir: join(root, 'base') };
  const first = server;
  try {
    server = await startTestServer(dirs);
    trusted();
    const before = (await status(viaProxy('dave'))).csrf;
    await server.close();
    server = await startTestServer(dirs);
    assert.equal((await status(viaProxy('dave'))).csrf, before);
  } finally {
    if (server !== first) await server.close();
    server = first;
    rmSync(root, { recursive: true, force: true });
  }
});
