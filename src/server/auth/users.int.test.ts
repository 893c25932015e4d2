import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ApiAnswer, ApiClient } from '../../../test/helpers/client.ts';
import { startTestServer, type TestServer } from '../../../test/helpers/server.ts';
import type { DomainEvent } from '../core/events.ts';

const PW = 'correct-horse-battery';
let server: TestServer;
let admin: ApiClient;
const events: DomainEvent[] = [];
const passwordsUsed = new Set([PW]);

before(async () => {
  server = await startTestServer();
  server.kade.events.subscribe((e) => events.push(e));
  admin = new ApiClient(server.url);
  await admin.loginAs('admin', PW);
});
after(async () => {
  await server.close();
});

const isProblem = (r: ApiAnswer<any>, status: number, code: string) => {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.code, code, JSON.stringify(r.body));
};

async function addUser(name: string, role: string, password = PW): Promise<void> {
  passwordsUsed.add(password);
  const r = await admin.post('/api/users', { name, password, role });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

async function session(name: string, password = PW): Promise<ApiClient> {
  const c = new ApiClient(server.url);
  await c.loginAs(name, password);
  return c;
}

const roleOf = async (name: string) => ((await admin.get('/api/users')).body as { name: string; role: string }[]).find((u) => u.name === name)?.role;
const loggedIn = async (c: ApiClient) => (await c.get('/api/auth/status')).body.user?.name ?? null;

test('admins list and create accounts; the list never shows a hash', async () => {
  await addUser('olga', 'operator');
  const list = await admin.get('/api/users');
  assert.equal(list.status, 200);
  const olga = list.body.find((u: { name: string }) => u.name === 'olga');
  assert.deepEqual(Object.keys(olga).sort(), ['created_at', 'last_login_at', 'name', 'role']);
  assert.equal(olga.role, 'operator');
  assert.equal(olga.last_login_at, null);
  await session('olga');
  assert.match((await admin.get('/api/users')).body.find((u: { name: string }) => u.name === 'olga').last_login_at, /^\d{4}-/);
  assert.doesNotMatch(JSON.stringify(list.body), /scrypt|password/);

  isProblem(await admin.post('/api/users', { name: 'olga', password: PW, role: 'viewer' }), 409, 'name_taken');
  isProblem(await admin.post('/api/users', { name: 'Olga!', password: PW, role: 'viewer' }), 400, 'invalid_name');
  isProblem(await admin.post('/api/users', { name: 'short', password: 'seven77', role: 'viewer' }), 400, 'validation');
  isProblem(await admin.post('/api/users', { name: 'long', password: 'x'.repeat(1025), role: 'viewer' }), 400, 'validation');
  isProblem(await admin.post('/api/users', { name: 'norole', password: PW }), 400, 'validation');
  isProblem(await admin.post('/api/users', { name: 'root', password: PW, role: 'root' }), 400, 'validation');
  isProblem(await admin.put('/api/users/olga', {}), 400, 'validation');
  isProblem(await admin.put('/api/users/nobody', { role: 'viewer' }), 404, 'not_found');
  isProblem(await admin.del('/api/users/nobody'), 404, 'not_found');
});

test('a role change applies to the next request, without logging in again', async () => {
  await addUser('vera', 'viewer');
  const vera = await session('vera');
  isProblem(await vera.post('/api/stacks/x/start'), 403, 'forbidden');
  assert.equal((await admin.put('/api/users/vera', { role: 'operator' })).status, 200);
  // Past the guard now: the stack does not exist.
  isProblem(await vera.post('/api/stacks/x/start'), 404, 'not_found');
  isProblem(await vera.get('/api/users'), 403, 'forbidden');
  await admin.put('/api/users/vera', { role: 'admin' });
  assert.equal((await vera.get('/api/users')).status, 200);
  await admin.put('/api/users/vera', { role: 'viewer' });
  isProblem(await vera.get('/api/users'), 403, 'forbidden');
  isProblem(await vera.post('/api/stacks/x/start'), 403, 'forbidden');
  assert.equal((await vera.get('/api/auth/status')).body.user.role, 'viewer');
});

test('the last admin can be neither demoted nor deleted; racing demotions cannot both win', async () => {
  isProblem(await admin.put('/api/users/admin', { role: 'operator' }), 409, 'last_admin');
  isProblem(await admin.put('/api/users/admin', { role: 'viewer', password: 'a-new-password' }), 409, 'last_admin');
  isProblem(await admin.del('/api/users/admin'), 409, 'last_admin');
  // The refused change left the password alone too.
  await session('admin');

  // Two admins demote each other at once: exactly one may win. With a new password in the same
  // change, both requests pass the guard while their hashes are computed, so the transaction
  // alone has to decide, and the loser must hear 409 last_admin.
  await addUser('bob', 'admin');
  const bob = await session('bob');
  const codes: string[] = [];
  for (const body of [{ role: 'viewer' }, { role: 'viewer', password: PW }, { role: 'viewer', password: PW }]) {
    const [a, b] = await Promise.all([admin.put('/api/users/bob', body), bob.put('/api/users/admin', body)]);
    const wins = [a, b].filter((r) => r.status === 200);
    assert.equal(wins.length, 1, JSON.stringify([a.body, b.body]));
    const loser = a.status === 200 ? b : a;
    assert.ok([403, 409].includes(loser.status), JSON.stringify(loser.body));
    codes.push(loser.body.code);
    const winner = a.status === 200 ? admin : bob;
    const loserName = a.status === 200 ? 'bob' : 'admin';
    assert.equal((await winner.put(`/api/users/${loserName}`, { role: 'admin' })).status, 200);
    await admin.loginAs('admin', PW);
    await bob.loginAs('bob', PW);
  }
  assert.ok(codes.includes('last_admin'), `no race reached the transaction: ${codes.join(', ')}`);
  const [d1, d2] = await Promise.all([admin.del('/api/users/bob'), bob.del('/api/users/admin')]);
  // The loser is refused by the guard (its account is gone: 401) or by the count (409).
  assert.equal([d1, d2].filter((r) => r.status === 204).length, 1, JSON.stringify([d1.body, d2.body]));
  if (d2.status === 204) {
    // bob won and deleted the first admin: put it back so the other tests keep their admin.
    await bob.post('/api/users', { name: 'admin', password: PW, role: 'admin' });
    await admin.loginAs('admin', PW);
    await admin.del('/api/users/bob');
  }
  assert.deepEqual(
    ((await admin.get('/api/users')).body as { name: string; role: string }[]).filter((u) => u.role === 'admin').map((u) => u.name),
    ['admin'],
  );
});

test('changing the own password keeps the role, ends the other sessions and keeps this one', async () => {
  await addUser('otto', 'operator');
  const here = await session('otto');
  const elsewhere = await session('otto');
  isProblem(await here.put('/api/auth/password', { current_password: 'not-it-at-all', new_password: 'otto-new-password' }), 403, 'wrong_password');
  isProblem(await here.put('/api/auth/password', { current_password: PW, new_password: 'short' }), 400, 'validation');
  assert.equal(await loggedIn(elsewhere), 'otto', 'refused changes end nothing');

  passwordsUsed.add('otto-new-password');
  const ok = await here.put('/api/auth/password', { current_password: PW, new_password: 'otto-new-password' });
  assert.equal(ok.status, 204, JSON.stringify(ok.body));
  assert.equal(await loggedIn(here), 'otto');
  assert.equal(await loggedIn(elsewhere), null);
  isProblem(await elsewhere.get('/api/stacks'), 401, 'unauthenticated');
  assert.equal(await roleOf('otto'), 'operator');
  assert.equal((await here.get('/api/auth/status')).body.user.role, 'operator');
  isProblem(await new ApiClient(server.url).post('/api/auth/login', { username: 'otto', password: PW }), 401, 'bad_credentials');
  await session('otto', 'otto-new-password');
});

test('a viewer may change their own password too, and stays a viewer', async () => {
  await addUser('vic', 'viewer');
  const vic = await session('vic');
  passwordsUsed.add('vic-new-password');
  assert.equal((await vic.put('/api/auth/password', { current_password: PW, new_password: 'vic-new-password' })).status, 204);
  assert.equal(await roleOf('vic'), 'viewer');
  isProblem(await vic.post('/api/stacks/x/start'), 403, 'forbidden');
});

test('wrong current passwords are rate limited per account', async () => {
  await addUser('rita', 'viewer');
  const rita = await session('rita');
  for (let i = 0; i < 5; i++)
    isProblem(await rita.put('/api/auth/password', { current_password: `wrong-${i}`, new_password: 'rita-new-password' }), 403, 'wrong_password');
  const limited = await rita.put('/api/auth/password', { current_password: PW, new_password: 'rita-new-password' });
  isProblem(limited, 429, 'rate_limited');
  assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
  await session('rita');
});

test('an admin reset ends every session of that account; the role stays', async () => {
  await addUser('paula', 'operator');
  const one = await session('paula');
  const two = await session('paula');
  passwordsUsed.add('paula-reset-password');
  const r = await admin.put('/api/users/paula', { password: 'paula-reset-password' });
  assert.equal(r.status, 200);
  assert.equal(r.body.role, 'operator');
  assert.equal(await loggedIn(one), null);
  assert.equal(await loggedIn(two), null);
  await session('paula', 'paula-reset-password');
  assert.equal(await roleOf('paula'), 'operator');

  // An admin resetting their own password through this route keeps the session that did it.
  const otherAdminTab = await session('admin');
  passwordsUsed.add('admin-second-password');
  assert.equal((await admin.put('/api/users/admin', { password: 'admin-second-password' })).status, 200);
  assert.equal(await loggedIn(admin), 'admin');
  assert.equal(await loggedIn(otherAdminTab), null);
  assert.equal(await roleOf('admin'), 'admin');
});

test('deleting an account ends its sessions at once', async () => {
  await addUser('dora', 'operator');
  const dora = await session('dora');
  assert.equal((await admin.del('/api/users/dora')).status, 204);
  isProblem(await dora.get('/api/stacks'), 401, 'unauthenticated');
  isProblem(await new ApiClient(server.url).post('/api/auth/login', { username: 'dora', password: PW }), 401, 'bad_credentials');
  assert.equal(await roleOf('dora'), undefined);
});

test('account changes are events for the audit log, without passwords or hashes', async () => {
  const types = new Set(events.map((e) => e.type));
  for (const t of ['user.created', 'user.role_changed', 'user.password_changed', 'user.deleted', 'user.login']) assert.ok(types.has(t), `no ${t} event`);
  const role = events.find((e) => e.type === 'user.role_changed' && e.target === 'vera');
  assert.deepEqual(role?.detail, { from: 'viewer', to: 'operator' });
  assert.equal(role?.actor?.user, 'admin');
  const failed = events.find((e) => e.type === 'user.password_changed' && e.status === 'failed');
  assert.equal(failed?.target, 'otto');
  const all = JSON.stringify(events);
  assert.doesNotMatch(all, /scrypt\$/);
  for (const pw of passwordsUsed) assert.ok(!all.includes(pw), `an event carries the password ${pw}`);
  // And the audit log records them under its own action names.
  const log = await admin.get('/api/audit?source=auth&limit=200');
  assert.equal(log.status, 200, JSON.stringify(log.body));
  const actions = new Set((log.body.entries as { action: string }[]).map((e) => e.action));
  for (const a of ['add', 'role_change', 'password_change', 'delete']) assert.ok(actions.has(a), `no audit entry ${a}`);
});
