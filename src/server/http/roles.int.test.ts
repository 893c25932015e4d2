import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiClient } from '../../../test/helpers/client.ts';
import { startTestServer, type TestServer } from '../../../test/helpers/server.ts';

/**
 * The role rules, generated from the route table the server publishes: every route declares
 * its access in `x-kade-access`, so a route added later is covered without touching this file.
 * Only refusals are exercised (the guard answers before any handler runs), so no call here
 * changes anything, whatever the route would do.
 */

const ACCESS = ['public', 'viewer', 'operator', 'admin'] as const;
type Access = (typeof ACCESS)[number];
interface Operation {
  method: string;
  path: string;
  access: Access | undefined;
}

/** Mutating routes a viewer may call: looking after the own session and password. Anything else is a review. */
const SELF_SERVICE = new Set(['POST /api/auth/logout', 'PUT /api/auth/password']);
/** Mutating routes anyone may call: how one gets a session in the first place. */
const PUBLIC_MUTATING = new Set(['POST /api/auth/setup', 'POST /api/auth/login']);

const PASSWORD = 'correct-horse-battery';
let server: TestServer;
let ops: Operation[];
const as: Record<'admin' | 'operator' | 'viewer', ApiClient> = {} as never;

const label = (o: Operation) => `${o.method} ${o.path}`;
const isMutating = (o: Operation) => o.method !== 'GET' && o.method !== 'HEAD';
// Any safe dummy fits every parameter: the guard refuses before the value is used.
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x');

before(async () => {
  server = await startTestServer();
  const doc = (await new ApiClient(server.url).get('/api/openapi.json')).body as { paths: Record<string, Record<string, Record<string, unknown>>> };
  ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, access: op['x-kade-access'] as Access | undefined })),
  );
  as.admin = new ApiClient(server.url);
  await as.admin.loginAs('admin', PASSWORD);
  for (const role of ['operator', 'viewer'] as const) {
    const made = await as.admin.post('/api/users', { name: role, password: PASSWORD, role });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    as[role] = new ApiClient(server.url);
    await as[role].loginAs(role, PASSWORD);
  }
});
after(async () => {
  await server.close();
});

/** Calls each operation and lists those whose answer is not the expected refusal, for one readable failure. */
async function refusals(client: ApiClient, list: Operation[], status: number, code: string): Promise<string[]> {
  const wrong: string[] = [];
  for (const o of list) {
    const r = await client.call(o.method, concrete(o.path), isMutating(o) ? {} : undefined);
    if (r.status !== status || r.body?.code !== code) wrong.push(`${label(o)} → ${r.status} ${r.body?.code ?? ''}`);
  }
  return wrong;
}

test('every route declares its access, and every /api route is in the OpenAPI document', () => {
  const undeclared = ops.filter((o) => !ACCESS.includes(o.access as Access)).map(label);
  assert.deepEqual(undeclared, [], 'routes without a valid x-kade-access');
  // A route registered outside defineRoute would escape the guard and this table alike.
  const documented = new Set(ops.map((o) => `${o.method} ${o.path.replace(/\{([^}]+)\}/g, ':$1')}`));
  const registered = server.kade.app.routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/') && r.path !== '/api/openapi.json');
  const hidden = [...new Set(registered.map((r) => `${r.method} ${r.path}`))].filter((r) => !documented.has(r));
  assert.deepEqual(hidden, [], 'routes served but not in /api/openapi.json');
});

test('a viewer is refused every mutating route beyond its own session and password', async () => {
  const mutating = ops.filter(isMutating);
  const allowed = mutating.filter((o) => o.access === 'viewer' || o.access === 'public').map(label);
  assert.deepEqual(
    allowed.filter((l) => !SELF_SERVICE.has(l) && !PUBLIC_MUTATING.has(l)),
    [],
    'mutating routes open to viewers: review them',
  );
  const guarded = mutating.filter((o) => o.access === 'operator' || o.access === 'admin');
  assert.ok(guarded.length > 0);
  assert.deepEqual(await refusals(as.viewer, guarded, 403, 'forbidden'), []);
});

test('an operator is refused every admin route, whatever the method', async () => {
  const adminOnly = ops.filter((o) => o.access === 'admin');
  assert.ok(adminOnly.some((o) => o.path === '/api/users' && o.method === 'GET'));
  assert.deepEqual(await refusals(as.operator, adminOnly, 403, 'forbidden'), []);
});

test('without a session every non-public route answers 401', async () => {
  const closed = ops.filter((o) => o.access !== 'public');
  const anon = new ApiClient(server.url);
  assert.deepEqual(await refusals(anon, closed, 401, 'unauthenticated'), []);
});

test('the route table per role, as a figure', () => {
  const rows = ACCESS.map((access) => {
    const mine = ops.filter((o) => o.access === access);
    return { access, read: mine.filter((o) => !isMutating(o)).length, write: mine.filter(isMutating).length, total: mine.length };
  });
  for (const r of rows) assert.ok(r.total > 0, `no route is declared ${r.access}`);
  const line = (cells: (string | number)[]) => cells.map((c, i) => (i === 0 ? String(c).padEnd(9) : String(c).padStart(6))).join(' ');
  const figure = [
    `Routes by declared access (${ops.length} in /api/openapi.json)`,
    line(['access', 'read', 'write', 'total']),
    ...rows.map((r) => line([r.access, r.read, r.write, r.total])),
    line(['all', ...(['read', 'write', 'total'] as const).map((k) => rows.reduce((n, r) => n + r[k], 0))]),
    `tested refusals: viewer ${ops.filter((o) => isMutating(o) && (o.access === 'operator' || o.access === 'admin')).length} mutating routes, ` +
      `operator ${rows[3]?.total} admin routes, anonymous ${ops.length - (rows[0]?.total ?? 0)} non-public routes`,
  ].join('\n');
  console.log(figure);
});
