import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiClient } from '../helpers/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// Sessions and login (issue 12 item 7 and the permanent suite): one answer for unknown users and
// wrong passwords, back-off per account and per address (the address from a trusted proxy only),
// a known device spared it (issue 23 item 7, more in lock-out.test.ts), and a deleted user, a
// changed password or a demoted role stop working at the next request.
const PASSWORD = 'correct-horse-battery';
let server: TestServer;
let admin: ApiClient;
let n = 0;
/** The victim's known-device cookie from its sign-in in the second case. */
let victimDevice = '';
/** Each attempt from its own address, as the trusted proxy (127.0.0.1 here) reports it. */
const nextAddress = () => `198.51.100.${++n}`;

async function login(username: string, password: string, address = nextAddress(), cookie?: string) {
  const r = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Forwarded-For': address, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ username, password }),
  });
  const device = r.headers.getSetCookie().find((c) => c.startsWith('svc_device='));
  return { status: r.status, body: (await r.json()) as Record<string, unknown>, retryAfter: r.headers.get('retry-after'), device: device?.split(';')[0] };
}

before(async () => {
  server = await startTestServer({ env: { SVC_AUTH_PROXY_TRUSTED: '127.0.0.1' } });
  admin = new ApiClient(server.url);
  await admin.loginAs('admin', PASSWORD);
  for (const name of ['victim', 'leaver', 'changer', 'demoted']) {
    assert.equal((await admin.post('/api/users', { name, password: PASSWORD, role: 'operator' })).status, 201);
  }
});
after(() => server.close());

test('an unknown user and a wrong password get the same answer, in comparable time', async () => {
  const unknown = await login('nobody-here', 'wrong-password-1');
  const wrong = await login('victim', 'wrong-password-1');
  assert.equal(unknown.status, 401);
  assert.deepEqual(unknown.body, wrong.body);
  // Both pay for a password hash: an unknown name is not answered at once.
  const time = async (user: string) => {
    const t0 = performance.now();
    await login(user, 'wrong-password-2');
    return performance.now() - t0;
  };
  const unknownMs = (await time('nobody-1')) + (await time('nobody-2'));
  const wrongMs = (await time('demoted')) + (await time('changer'));
  assert.ok(unknownMs > wrongMs / 4, `unknown users answered in ${unknownMs.toFixed(0)} ms, known ones in ${wrongMs.toFixed(0)} ms`);
});

test('one address is limited after five attempts a minute, with Retry-After; another address is not', async () => {
  const address = nextAddress();
  for (let i = 0; i < 5; i++) assert.equal((await login('victim', `guess-${i}`, address)).status, 401);
  const limited = await login('victim', PASSWORD, address);
  assert.equal(limited.status, 429);
  assert.equal(limited.body.code, 'rate_limited');
  assert.ok(Number(limited.retryAfter) > 0);
  const owner = await login('victim', PASSWORD);
  assert.equal(owner.status, 200, 'the owner from elsewhere signs in');
  victimDevice = owner.device ?? '';
});

test('guesses on one account from many addresses slow that account down, never lock its owner out of a known device', async () => {
  // The owner signed in from this browser before (previous test); guesses now come from everywhere.
  assert.ok(victimDevice, 'the sign-in set a known-device cookie');
  let limited = null;
  for (let i = 0; i < 12 && !limited; i++) {
    const r = await login('victim', `spray-${i}`);
    if (r.status === 429) limited = r;
    else assert.equal(r.status, 401);
  }
  assert.ok(limited, 'twelve guesses on one account from twelve addresses went unchecked');
  assert.equal(limited.body.code, 'rate_limited');
  const unknownAccount = await login('nobody-sprayed', 'x');
  assert.equal(unknownAccount.status, 401, 'the delay is per account: another name is not slowed');
  assert.equal((await login('victim', PASSWORD, nextAddress(), victimDevice)).status, 200, 'the owner on a known device is not kept out, from anywhere');
});

test('a deleted user, a changed password and a demoted role take effect at the next request', async () => {
  const as = async (name: string) => {
    const c = new ApiClient(server.url);
    await c.loginAs(name, PASSWORD);
    return c;
  };
  const leaver = await as('leaver');
  const changer = await as('changer');
  const demoted = await as('demoted');
  assert.equal((await leaver.get('/api/stacks')).status, 200);

  assert.equal((await admin.del('/api/users/leaver')).status, 204);
  assert.equal((await leaver.get('/api/stacks')).status, 401);

  assert.equal((await admin.put('/api/users/changer', { password: 'another-password-9' })).status, 200);
  assert.equal((await changer.get('/api/stacks')).status, 401);

  assert.equal((await demoted.post('/api/stacks/kadetest-none/start')).status, 404, 'an operator may try to start an app');
  assert.equal((await admin.put('/api/users/demoted', { role: 'viewer' })).status, 200);
  const refused = await demoted.post('/api/stacks/kadetest-none/start');
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'forbidden');
});
