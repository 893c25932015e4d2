// A restore is judged as the one who restores (issue 23 item 4): a backup of an app with a power over the host
// (cap_add NET_ADMIN) and an admin-confirmed folder outside the app cannot be restored by an operator, who could not
// install it, nor by an admin without confirming the folder again; an old backup does not bring back a power an
// admin has since removed. Every refusal answers the request: no job, nothing under LIBRARY_DIR, the live app as it
// was (not even stopped). Runs against a real Kade over HTTP with the real engine.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type ApiAnswer, ApiClient } from '../helpers/client.ts';
import { useEngineSuite } from '../helpers/engine-suite.ts';

const suite = useEngineSuite();
const APP = 'kadetest-rp-powered';
const OLD = 'kadetest-rp-dropped';
let op: ApiClient;
let outside: string;
let root: string;
const library = () => join(suite.kade.baseDir, 'stacks');

const composeOf = (folder: string | null, cap: boolean) =>
  [
    'services:',
    '  app:',
    '    image: kade-test/busybox:1',
    '    init: true',
    '    command: ["sleep", "3600"]',
    '    labels: { kade.test: "1" }',
    ...(cap ? ['    cap_add: [NET_ADMIN]'] : []),
    ...(folder ? [`    volumes: ["${folder}:/outside"]`] : []),
    '',
  ].join('\n');

/** A template repo with one app: NET_ADMIN and a bind of the outside folder. */
function writeRepo(dir: string, folder: string): void {
  const app = join(dir, 'apps', 'powered');
  mkdirSync(app, { recursive: true });
  const template = { name: 'Powered', description: { en: 'x', nl: 'x' }, version: '1.0.0', metadata: { categories: ['developer'] }, fields: [] };
  writeFileSync(join(app, 'template.json'), JSON.stringify(template));
  writeFileSync(join(app, 'docker-compose.yml'), composeOf(folder, true));
}

async function ended(r: ApiAnswer<any>): Promise<{ state: string; log: string[] }> {
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return suite.api.waitJob(r.body.job.id, 180_000);
}

async function succeeded(r: ApiAnswer<any>): Promise<void> {
  const j = await ended(r);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
}

/** What a refused restore must leave alone: the names under LIBRARY_DIR and the number of jobs. */
async function state() {
  return { library: readdirSync(library()).sort(), jobs: (await suite.api.get<unknown[]>('/api/jobs')).body.length };
}

const auditCount = async (q: string) => (await suite.api.get(`/api/audit?action=outside_path_allow&q=${encodeURIComponent(q)}`)).body.total as number;

async function newestBackup(stack: string): Promise<string> {
  const r = await suite.api.get<{ id: string }[]>(`/api/backups?stack=${stack}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const id = r.body[0]?.id;
  assert.ok(id, `${stack} has a backup`);
  return id;
}

function assertRefused(r: ApiAnswer<any>, status: number, code: string, what: string): void {
  assert.notEqual(r.status, 500, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.code, code, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(typeof r.body.detail, 'string', what);
}

async function running(stack: string): Promise<string[]> {
  const r = await suite.api.get<{ containers: { id: string; state: string }[] }>(`/api/stacks/${stack}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.containers.filter((c) => c.state === 'running').map((c) => c.id);
}

// A test, not a `before` hook: the engine suite's own hook must have run first.
test('setup: ALLOWED_HOST_DIRS empty, an operator, and the app installed by an admin who confirmed the outside folder', async () => {
  root = mkdtempSync(join(tmpdir(), 'kade-rp-'));
  outside = mkdtempSync(join(tmpdir(), 'kade-rp-outside-'));
  writeRepo(join(root, 'repo'), outside);
  await suite.git.addRepo('powers', join(root, 'repo'), { branch: 'main' });
  await suite.api.addSyncedRepo('powers', suite.git.url('powers'));
  assert.equal((await suite.api.put('/api/settings', { ALLOWED_HOST_DIRS: [] })).status, 200);
  assert.equal((await suite.api.post('/api/users', { name: 'rp-op', password: 'operator-password-1', role: 'operator' })).status, 201);
  op = new ApiClient(suite.kade.url);
  await op.loginAs('rp-op', 'operator-password-1');
  const install = { repo: 'powers', app: 'powered', values: {} };
  // The premise: the operator could not install this app.
  assertRefused(await op.post('/api/store/install', { ...install, name: APP }), 403, 'app_powers_refused', 'operator install');
  const refused = await suite.api.post('/api/store/install', { ...install, name: APP });
  assertRefused(refused, 400, 'forbidden_path', 'admin install without confirmation');
  const confirm = String(refused.body.params.confirm).split('\n');
  assert.deepEqual(confirm, [outside]);
  for (const name of [APP, OLD]) await succeeded(await suite.api.post('/api/store/install', { ...install, name, confirm_outside_paths: confirm }));
  assert.equal(await auditCount(outside), 2);
});
after(() => {
  for (const d of [root, outside]) if (d) rmSync(d, { recursive: true, force: true });
});

test('an app deleted by the admin: the operator’s restore of its backup is refused for the power and for the folder, nothing written', async () => {
  await succeeded(await suite.api.post('/api/backups', { stack: APP }));
  const id = await newestBackup(APP);
  await succeeded(await suite.api.del(`/api/stacks/${APP}`));
  const before = await state();
  assert.ok(!before.library.includes(APP));

  const power = await op.call('POST', `/api/backups/${id}/restore`);
  assertRefused(power, 403, 'app_powers_refused', 'operator restore');
  assert.match(power.body.detail, /cap_add: NET_ADMIN/);
  assert.equal(power.body.params.setting, 'ALLOW_PRIVILEGED_APPS');
  assert.deepEqual(await state(), before, 'the refused restore left something under LIBRARY_DIR or started a job');

  // With powers open to everyone, the folder still needs an admin: an operator cannot confirm it.
  assert.equal((await suite.api.put('/api/settings', { ALLOW_PRIVILEGED_APPS: 'everyone' })).status, 200);
  try {
    const path = await op.post(`/api/backups/${id}/restore`, { confirm_outside_paths: [outside] });
    assertRefused(path, 400, 'forbidden_path', 'operator restore with powers allowed');
    assert.equal(path.body.params.path, outside);
    assert.equal(path.body.params.confirm, undefined, 'an operator is not offered a confirmation');
    assert.deepEqual(await state(), before);
  } finally {
    assert.equal((await suite.api.put('/api/settings', { ALLOW_PRIVILEGED_APPS: 'admins' })).status, 200);
  }
});

test('the admin’s restore needs the outside folder confirmed again; confirmed, it runs and is audited', async () => {
  const id = await newestBackup(APP);
  const before = await state();
  const audited = await auditCount(outside);
  const bare = await suite.api.call('POST', `/api/backups/${id}/restore`);
  assertRefused(bare, 400, 'forbidden_path', 'admin restore without confirmation');
  assert.equal(bare.body.params.path, outside);
  assert.deepEqual(String(bare.body.params.confirm).split('\n'), [outside], 'the refusal lists the paths to confirm');
  assert.match(bare.body.detail, /confirm_outside_paths/);
  assertRefused(
    await suite.api.post(`/api/backups/${id}/restore`, { confirm_outside_paths: ['/somewhere/else'] }),
    400,
    'forbidden_path',
    'a wrong confirmation',
  );
  assert.deepEqual(await state(), before);
  assert.equal(await auditCount(outside), audited, 'a refusal is not audited as allowed');

  const j = await ended(await suite.api.post(`/api/backups/${id}/restore`, { confirm_outside_paths: [outside] }));
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  assert.equal((await running(APP)).length, 1, 'the restored app runs');
  assert.equal(await auditCount(outside), audited + 1);
  const audit = await suite.api.get(`/api/audit?action=outside_path_allow&q=${encodeURIComponent(outside)}`);
  assert.equal(audit.body.entries[0].user, 'admin');
});

test('an old backup of an app an admin has since taken NET_ADMIN from is refused to the operator; the app keeps running', async () => {
  await succeeded(await suite.api.post('/api/backups', { stack: OLD }));
  const id = await newestBackup(OLD);
  const edited = await suite.api.put(`/api/stacks/${OLD}/compose`, { content: composeOf(null, false) });
  assert.equal(edited.status, 200, JSON.stringify(edited.body));
  await succeeded(await suite.api.post(`/api/stacks/${OLD}/restart`));
  const files = ['docker-compose.yml', '.env', '.svc.json'].map((f) => readFileSync(join(library(), OLD, f), 'utf8'));
  const containers = await running(OLD);
  assert.equal(containers.length, 1);
  const before = await state();

  const r = await op.post(`/api/backups/${id}/restore`, {});
  assertRefused(r, 403, 'app_powers_refused', 'operator restore of the old backup');
  assert.match(r.body.detail, /NET_ADMIN/);
  assert.deepEqual(await state(), before);
  assert.deepEqual(
    ['docker-compose.yml', '.env', '.svc.json'].map((f) => readFileSync(join(library(), OLD, f), 'utf8')),
    files,
    'the live files are untouched',
  );
  assert.deepEqual(await running(OLD), containers, 'the app was not stopped');
});
