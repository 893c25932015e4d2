// Bind paths at every route (issue 12 items 1, 2 and 11): every route of /api/openapi.json that takes a path-like
// value is listed below, and a new one fails the first test until it is. Each hostile spelling is tried as an
// operator (refused with one message, nothing written) and as an admin (refused unless the exact paths are
// confirmed; a confirmation is audited). Runs against a real Kade over HTTP with the real engine.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type ApiAnswer, ApiClient } from '../helpers/client.ts';
import { useEngineSuite } from '../helpers/engine-suite.ts';
import { fingerprint } from '../helpers/fingerprint.ts';

const suite = useEngineSuite();
const APP = 'kadetest-pp-keep';
const OTHER = 'kadetest-pp-other';
const EDIT = 'kadetest-pp-edit';
let op: ApiClient;
let outside: string;
const base = () => suite.kade.baseDir;
const dataDir = () => join(base(), 'appdata');
const stacks = () => join(base(), 'stacks');

/** Every spelling of a host path an app must not get; `other` ones name another app instead of the one message. */
const allSpellings = (): { label: string; path: string; other?: boolean }[] => [
  { label: 'host root', path: '/' },
  { label: '/etc', path: '/etc' },
  { label: 'trailing slash', path: '/etc/' },
  { label: 'double slash', path: '//etc' },
  { label: 'dot-dot', path: `${dataDir()}/${APP}/../../../../../../etc` },
  { label: '/root', path: '/root' },
  { label: '/home', path: '/home' },
  { label: '/usr', path: '/usr' },
  { label: 'engine data', path: '/var/lib/docker' },
  { label: 'engine socket', path: '/var/run/docker.sock' },
  { label: 'DATA_DIR itself', path: dataDir() },
  { label: "Kade's own SVC_DATA", path: suite.kade.stateDir },
  { label: 'LIBRARY_DIR', path: stacks() },
  { label: 'a missing folder', path: '/no/such/place' },
  { label: 'a link out of its own folder', path: join(dataDir(), APP, 'link-out') },
  { label: "another app's folder", path: join(dataDir(), OTHER), other: true },
  { label: "dot-dot into another app's folder", path: `${join(dataDir(), APP)}/../${OTHER}/db`, other: true },
];
/** An install's data folder sent as the DATA_DIR root means the app's own DATA_DIR/<name> (issue 11 item 0), so it is no hostile spelling there. */
const spellings = (route = '') =>
  allSpellings()
    .filter((s) => !(route === 'POST /api/store/install' && s.label === 'DATA_DIR itself'))
    // The link lies in APP's own data folder: for any other app it is another app's folder.
    .map((s) => (s.label === 'a link out of its own folder' && route !== 'POST /api/stacks/{name}/reconfigure' ? { ...s, other: true } : s));
const DEVICES = ['/dev/vda', '/dev/kvm', '/dev/mem', '/dev/sda', '/dev'];

const composeWith = (bind: string) =>
  `services:\n  web:\n    image: kade-test/busybox:1\n    init: true\n    command: ["sleep", "3600"]\n    labels: { kade.test: "1" }\n    volumes: ["${bind}:/x"]\n`;
const confirmOf = (confirm?: string[]) => (confirm ? { confirm_outside_paths: confirm } : {});
let adoptCount = 0;

/** How each path-taking route is given a host path `p` (and, for admins, a confirmation). */
type Send = (c: ApiClient, p: string, confirm?: string[]) => Promise<ApiAnswer<any>>;
const BIND_ROUTES: Record<string, { role: 'operator' | 'admin'; send: Send }> = {
  'POST /api/store/install': {
    role: 'operator',
    send: (c, p, confirm) =>
      c.post('/api/store/install', {
        repo: 'appdata',
        app: 'keeper',
        name: 'kadetest-pp-new',
        values: { message: 'x', appdata_dir: p },
        ...confirmOf(confirm),
      }),
  },
  'POST /api/stacks/{name}/reconfigure': {
    role: 'operator',
    send: (c, p, confirm) =>
      c.post(`/api/stacks/${APP}/reconfigure`, { services: { web: { volumes: [{ host: p, container: '/x', read_only: true }] } }, ...confirmOf(confirm) }),
  },
  'PUT /api/stacks/{name}/compose': {
    role: 'operator',
    send: (c, p, confirm) => c.put(`/api/stacks/${EDIT}/compose`, { content: composeWith(p), ...confirmOf(confirm) }),
  },
  // The editor app's compose binds ${KEEP_DIR:-./files}: the .env value moves the bind.
  'PUT /api/stacks/{name}/env': {
    role: 'operator',
    send: (c, p, confirm) => c.put(`/api/stacks/${EDIT}/env`, { content: `KEEP_DIR=${p}\n`, ...confirmOf(confirm) }),
  },
  'POST /api/stacks/{name}/snapshots/{id}/restore': {
    role: 'operator',
    send: async (c, p, confirm) => {
      // A snapshot that holds the path: the file is changed on disk, then saved back through the editor (which keeps the old one).
      writeFileSync(join(stacks(), EDIT, 'docker-compose.yml'), composeWith(p));
      const saved = await suite.api.put(`/api/stacks/${EDIT}/compose`, { content: composeWith('${KEEP_DIR:-./files}') });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      return c.call('POST', `/api/stacks/${EDIT}/snapshots/${saved.body.snapshot}/restore`, confirmOf(confirm));
    },
  },
  'POST /api/stacks/adopt': {
    role: 'operator',
    send: (c, p, confirm) => {
      const dir = join(base(), 'adoptable', String(adoptCount++));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'compose.yaml'), composeWith(p));
      return c.post('/api/stacks/adopt', { path: dir, name: 'kadetest-pp-adopt', ...confirmOf(confirm) });
    },
  },
};
/**
 * Routes that take Kade's own folders or only read: checked by their own cases below. `connect` takes
 * service names (`services`), never a path: its own cases are in test/engine/networks.test.ts. The
 * notification routes' `host` is an SMTP server's name, never a path (src/server/notifications tests). A backup's
 * restore takes only `confirm_outside_paths` for the paths in its archive: its cases are in restore-policy.test.ts.
 * Accepting an app's files takes only `confirm_outside_paths` for the paths in its compose file: compose-gate.test.ts.
 * The host-path review of an install only judges the form's values, writing nothing: host-path-review.test.ts.
 */
const OTHER_ROUTES = [
  'GET /api/paths/check',
  'POST /api/backups/{id}/restore',
  'POST /api/stacks/{name}/files/accept',
  'PUT /api/settings',
  'POST /api/wizard/paths',
  'POST /api/paths/move',
  'POST /api/store/apps/{repo}/{app}/powers',
  'POST /api/store/apps/{repo}/{app}/host-paths',
  'POST /api/stacks/{name}/connect',
  'PUT /api/notifications',
  'POST /api/notifications/test',
];

const PATHLIKE = /^(path|content|values|services|host|devices|confirm_outside_paths|[A-Z_]*_DIRS?)$/;
function pathLikeRoutes(doc: { paths: Record<string, Record<string, any>> }): string[] {
  const resolve = (ref: string) => ref.split('/').reduce<any>((o, k) => (k === '#' ? doc : o?.[k]), null);
  const found = (x: any, depth = 0): boolean => {
    if (!x || typeof x !== 'object' || depth > 12) return false;
    if (x.$ref) return found(resolve(x.$ref), depth + 1);
    if (Object.entries(x.properties ?? {}).some(([k, v]) => PATHLIKE.test(k) || found(v, depth + 1))) return true;
    return [x.items, x.additionalProperties, ...(x.anyOf ?? []), ...(x.oneOf ?? []), ...(x.allOf ?? [])].some((v) => found(v, depth + 1));
  };
  const out: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, o] of Object.entries(ops)) {
      const query = (o.parameters ?? []).some((p: { in: string; name: string }) => p.in === 'query' && PATHLIKE.test(p.name));
      if (query || found(o.requestBody?.content?.['application/json']?.schema)) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out.sort();
}

/** Puts back what an allowed, confirmed case changed, so the next route starts from the same apps. */
async function reset(route: string): Promise<void> {
  const removeApp = async (name: string) => {
    const del = await suite.api.del(`/api/stacks/${name}`);
    assert.equal(del.status, 202, JSON.stringify(del.body));
    await suite.api.waitJob(del.body.job.id);
  };
  if (route === 'POST /api/stacks/adopt') await removeApp('kadetest-pp-adopt');
  if (route === 'POST /api/store/install') await removeApp('kadetest-pp-new');
  if (route === 'POST /api/stacks/{name}/reconfigure') {
    const r = await suite.api.post(`/api/stacks/${APP}/reconfigure`, { services: { web: { volumes: [] } } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal((await suite.api.waitJob(r.body.job.id)).state, 'succeeded');
  }
  // The editor app's files as the setup left them (written directly: its files may hold the confirmed path now).
  writeFileSync(join(stacks(), EDIT, 'docker-compose.yml'), composeWith('${KEEP_DIR:-./files}'));
  writeFileSync(join(stacks(), EDIT, '.env'), '', { mode: 0o600 });
}

const untouched = () => [...fingerprint(stacks()), ...fingerprint(join(suite.kade.stateDir, 'snapshots'))];

// A test, not a `before` hook: the engine suite's own hook must have run first.
test('setup: three apps of one template, an operator, a link out of an app folder, a folder outside Kade', async () => {
  await suite.git.addRepo('appdata', 'test/fixtures/repos/appdata', { branch: 'main' });
  await suite.api.addSyncedRepo('appdata', suite.git.url('appdata'));
  for (const name of [APP, OTHER, EDIT]) {
    const r = await suite.api.post('/api/store/install', { repo: 'appdata', app: 'keeper', name, values: { message: name } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const j = await suite.api.waitJob(r.body.job.id);
    assert.equal(j.state, 'succeeded', j.log.join('\n'));
  }
  symlinkSync('/etc', join(dataDir(), APP, 'link-out'));
  const edit = await suite.api.put(`/api/stacks/${EDIT}/compose`, { content: composeWith('${KEEP_DIR:-./files}') });
  assert.equal(edit.status, 200, JSON.stringify(edit.body));
  assert.equal((await suite.api.post('/api/users', { name: 'pp-op', password: 'operator-password-1', role: 'operator' })).status, 201);
  op = new ApiClient(suite.kade.url);
  await op.loginAs('pp-op', 'operator-password-1');
  outside = mkdtempSync(join(tmpdir(), 'kade-pp-outside-'));
});
after(() => outside && rmSync(outside, { recursive: true, force: true }));

test('every route of the OpenAPI document that takes a path-like value has its cases here', async () => {
  const doc = await suite.api.get('/api/openapi.json');
  assert.deepEqual(pathLikeRoutes(doc.body), [...Object.keys(BIND_ROUTES), ...OTHER_ROUTES].sort());
});

for (const [route, r] of Object.entries(BIND_ROUTES)) {
  test(`${route}: an operator gets one refusal for every spelling, nothing is written`, async () => {
    const before = untouched();
    const details = new Set<string>();
    for (const s of spellings(route)) {
      const a = await r.send(op, s.path);
      if (r.role === 'admin') {
        assert.equal(a.status, 403, `${s.label}: ${JSON.stringify(a.body)}`);
        continue;
      }
      // The engine socket bound as it is is a power of its own too: the powers policy may refuse it first, naming it.
      if (s.label === 'engine socket' && a.status === 403) {
        assert.equal(a.body.code, 'app_powers_refused', JSON.stringify(a.body));
        assert.match(a.body.params.powers, /engine socket \/var\/run\/docker\.sock/);
        continue;
      }
      assert.equal(a.status, 400, `${s.label}: ${JSON.stringify(a.body)}`);
      assert.equal(a.body.code, 'forbidden_path', s.label);
      assert.equal(a.body.params.confirm, undefined, `${s.label}: an operator cannot confirm`);
      if (s.other) assert.equal(a.body.params.reason, 'other_app', s.label);
      else {
        assert.equal(a.body.params.reason, 'not_allowed', s.label);
        details.add(a.body.detail.replace(`'${a.body.params.path}'`, "'P'"));
      }
    }
    if (r.role === 'operator') assert.equal(details.size, 1, `one message whatever the reason:\n${[...details].join('\n')}`);
    // The restore case writes its snapshot through the admin before the operator is refused.
    if (!route.includes('restore')) assert.deepEqual(untouched(), before, 'nothing written');
  });

  test(`${route}: an admin is refused without the exact confirmation; with it the path is allowed and audited`, async () => {
    for (const s of spellings(route)) {
      const a = await r.send(suite.api, s.path);
      assert.equal(a.status, 400, `${s.label}: ${JSON.stringify(a.body)}`);
      assert.equal(a.body.code, 'forbidden_path', s.label);
      if (s.other) {
        assert.equal(a.body.params.reason, 'other_app', s.label);
        const still = await r.send(suite.api, s.path, [s.path]);
        assert.equal(still.body.params?.reason, 'other_app', `${s.label}: another app's folder is never confirmable`);
      } else {
        assert.equal(a.body.params.reason, 'not_allowed', s.label);
        assert.ok(String(a.body.params.confirm ?? '').length > 0, `${s.label}: the refusal lists what to confirm`);
        const wrong = await r.send(suite.api, s.path, ['/somewhere/else']);
        assert.equal(wrong.body.code, 'forbidden_path', `${s.label}: a different confirmation does not count`);
      }
    }
    const target = join(outside, route.replace(/\W+/g, '-'));
    const refused = await r.send(suite.api, target);
    assert.equal(refused.body.code, 'forbidden_path', JSON.stringify(refused.body));
    const confirm = String(refused.body.params.confirm).split('\n');
    const ok = await r.send(suite.api, target, confirm);
    assert.ok([200, 201, 202].includes(ok.status), JSON.stringify(ok.body));
    if (ok.status === 202) await suite.api.waitJob(ok.body.job.id);
    const audit = await suite.api.get(`/api/audit?action=outside_path_allow&q=${encodeURIComponent(target)}`);
    assert.equal(audit.body.total, 1, JSON.stringify(audit.body));
    assert.equal(audit.body.entries[0].user, 'admin');
    await reset(route);
  });
}

test('devices: /dev/vda, /dev/kvm, /dev/mem, a disk and /dev itself are refused through the extras form', async () => {
  for (const d of DEVICES) {
    const a = await op.post(`/api/stacks/${APP}/reconfigure`, { services: { web: { devices: [d] } } });
    assert.equal(a.status, 400, `${d}: ${JSON.stringify(a.body)}`);
    assert.equal(a.body.code, 'forbidden_path', d);
    assert.equal(a.body.params.reason, 'not_allowed', d);
    const c = await suite.api.put(`/api/stacks/${EDIT}/compose`, {
      content: composeWith('./files').replace('    volumes:', `    devices: ["${d}:/dev/x"]\n    volumes:`),
    });
    assert.equal(c.body.code, 'forbidden_path', `${d} in the compose editor: ${JSON.stringify(c.body)}`);
  }
});

test('GET /api/paths/check: a non-admin gets one "not allowed" answer for every spelling outside its places', async () => {
  const answers = new Set<string>();
  for (const s of [...spellings(), { label: 'a device', path: '/dev/kvm' }]) {
    const a = await op.get(`/api/paths/check?path=${encodeURIComponent(s.path)}`);
    assert.equal(a.status, 200, s.label);
    if (s.path.startsWith(`${base()}/`) || s.path === base()) continue;
    assert.equal(a.body.reason, 'not_allowed', `${s.label}: ${JSON.stringify(a.body)}`);
    answers.add(JSON.stringify({ ...a.body, path: 'P' }));
  }
  assert.equal(answers.size, 1, [...answers].join('\n'));
  const admin = await suite.api.get(`/api/paths/check?path=${encodeURIComponent('/etc')}`);
  assert.equal(admin.body.reason, 'system', 'admins keep the whole answer');
});

test('PUT /api/settings: ALLOWED_HOST_DIRS refuses /, system folders, the socket and Kade own folders; a media folder is kept', async () => {
  for (const d of ['/', '//', '/etc', '/etc/', '/proc', '/sys', '/boot', '/dev', '/var/run', '/var/run/docker.sock', suite.kade.stateDir, stacks(), 'media']) {
    const a = await suite.api.put('/api/settings', { ALLOWED_HOST_DIRS: [d] });
    assert.equal(a.status, 400, `${d}: ${JSON.stringify(a.body)}`);
    assert.deepEqual(a.body.fields, ['ALLOWED_HOST_DIRS'], d);
  }
  assert.equal((await op.put('/api/settings', { ALLOWED_HOST_DIRS: [outside] })).status, 403);
  const ok = await suite.api.put('/api/settings', { ALLOWED_HOST_DIRS: [`${outside}/`] });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual(ok.body.ALLOWED_HOST_DIRS, [outside]);
  // Now an operator may bind it without any confirmation, and still nothing else.
  const j = await op.post(`/api/stacks/${APP}/reconfigure`, {
    services: { web: { volumes: [{ host: join(outside, 'media'), container: '/media', read_only: true }] } },
  });
  assert.equal(j.status, 202, JSON.stringify(j.body));
  assert.equal((await suite.api.waitJob(j.body.job.id)).state, 'succeeded');
  const etc = await op.post(`/api/stacks/${APP}/reconfigure`, { services: { web: { volumes: [{ host: '/etc', container: '/e', read_only: true }] } } });
  assert.equal(etc.body.code, 'forbidden_path');
  assert.equal((await suite.api.put('/api/settings', { ALLOWED_HOST_DIRS: [] })).status, 200);
});

test("POST /api/wizard/paths and Kade's own folders in PUT /api/settings: system folders are refused", async () => {
  for (const d of ['/', '/etc', '/usr', '/var/lib/docker', '/var/run/docker.sock']) {
    const a = await suite.api.put('/api/settings', { DATA_DIR: d });
    assert.equal(a.status, 400, `${d}: ${JSON.stringify(a.body)}`);
    const w = await suite.api.post('/api/wizard/paths', { BASE_DIR: d });
    assert.equal(w.status, 400, `wizard ${d}: ${JSON.stringify(w.body)}`);
  }
});

test('POST /api/paths/move: an operator is refused; an admin cannot move a folder onto the system, the socket, Kade or an app; nothing is touched', async () => {
  const before = untouched();
  assert.equal((await op.post('/api/paths/move', { DATA_DIR: join(base(), 'elsewhere') })).status, 403);
  const refused = [
    '/',
    '/etc',
    '/usr',
    '/var/lib/docker',
    '/var/run/docker.sock',
    '/proc/self',
    'relative/folder',
    '../../up',
    suite.kade.stateDir,
    join(suite.kade.stateDir, 'x'),
    join(dataDir(), APP, 'files'),
    join(stacks(), APP),
    base(),
  ];
  for (const d of refused) {
    for (const key of ['DATA_DIR', 'LIBRARY_DIR', 'BACKUP_DIR']) {
      const a = await suite.api.post('/api/paths/move', { [key]: d });
      assert.ok(a.status === 400 || a.status === 409, `${key}=${d}: ${a.status} ${JSON.stringify(a.body)}`);
      assert.deepEqual(a.body.fields, [key], `${key}=${d}: ${JSON.stringify(a.body)}`);
    }
  }
  assert.deepEqual(untouched(), before, 'no app folder or snapshot changed');
  const s = await suite.api.get('/api/settings');
  assert.deepEqual(s.body.paths_in_use, { BASE_DIR: base(), LIBRARY_DIR: stacks(), DATA_DIR: dataDir(), BACKUP_DIR: join(base(), 'backups') });
});

test('POST /api/store/apps/{repo}/{app}/powers only reads: an existing and a missing folder answer alike', async () => {
  const ask = (p: string) => op.post('/api/store/apps/appdata/keeper/powers', { values: { message: 'x', appdata_dir: p } });
  const a = await ask('/etc');
  const b = await ask('/no/such/place');
  assert.ok(a.status < 500, JSON.stringify(a.body));
  assert.equal(a.status, b.status);
  assert.equal(JSON.stringify(a.body).replaceAll('/etc', 'P'), JSON.stringify(b.body).replaceAll('/no/such/place', 'P'));
});
