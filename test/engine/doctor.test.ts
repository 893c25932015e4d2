// GET /api/doctor against the real engine: the BASE_DIR mount comparison (the host's view read by a
// probe container) in its two broken cases, "missing in the container" and "empty in the container".
// Kade runs on this host here, so its "own container" is one the test creates with BASE_DIR's host
// folder bind-mounted: the doctor's outside view then differs from what the server process sees.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { DoctorCheckT, DoctorReportT } from '../../src/shared/doctor.ts';
import { ApiClient } from '../helpers/client.ts';
import { requireEngine } from '../helpers/engine.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const PASSWORD = 'correct-horse-battery';
const WORKDIR = '/opt/kadetest-doctor';
// `docker compose` or `docker-compose`: whichever the engine's host has.
const RECREATE = new RegExp(`^cd ${WORKDIR} && docker[ -]compose up -d --force-recreate$`);

const root = mkdtempSync(join(tmpdir(), 'kade-doctor-'));
const hostBase = join(root, 'host-base');
const inner = join(root, 'inner-base');
let own: TestServer;
let plain: TestServer;
let admin: ApiClient;

const OWN = 'kadetest-doctor-own';
// Only this file's own container is removed: the doctor's probes remove themselves.
const removeOwn = () => run('docker', ['rm', '-f', OWN]).catch(() => undefined);

const byId = (r: DoctorReportT, id: string): DoctorCheckT => {
  const c = r.checks.find((x) => x.id === id);
  assert.ok(c, `no check ${id} in ${r.checks.map((x) => x.id).join(', ')}`);
  return c;
};

before(async () => {
  await requireEngine();
  await removeOwn();
  // The host has an installation with content: an app, its data, a backup.
  mkdirSync(join(hostBase, 'stacks', 'web'), { recursive: true });
  writeFileSync(join(hostBase, 'stacks', 'web', 'compose.yaml'), 'services: {}\n');
  mkdirSync(join(hostBase, 'appdata', 'web'), { recursive: true });
  mkdirSync(join(hostBase, 'backups'), { recursive: true });
  writeFileSync(join(hostBase, 'backups', 'web-1.tar.gz'), 'x');
  // "Kade's container": BASE_DIR (inner) is the host's hostBase, as compose would mount it.
  const { stdout } = await run('docker', [
    'create',
    '--label',
    'kade.test=1',
    '--label',
    `com.docker.compose.project.working_dir=${WORKDIR}`,
    '--name',
    OWN,
    '-v',
    `${hostBase}:${inner}`,
    'kade-test/busybox:1',
    'true',
  ]);
  // The server sees its own, fresh BASE_DIR: empty stacks, appdata and backups folders.
  own = await startTestServer({ baseDir: inner, stateDir: join(root, 'state'), kade: { ownContainerId: stdout.trim() } });
  admin = new ApiClient(own.url);
  await admin.loginAs('admin', PASSWORD);
});

after(async () => {
  await own?.close();
  await plain?.close();
  await removeOwn();
  rmSync(root, { recursive: true, force: true });
});

test('only an admin gets the report', async () => {
  const anon = await new ApiClient(own.url).get('/api/doctor');
  assert.equal(anon.status, 401);
  const made = await admin.post('/api/users', { name: 'operator', password: PASSWORD, role: 'operator' });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const operator = new ApiClient(own.url);
  await operator.loginAs('operator', PASSWORD);
  assert.equal((await operator.get('/api/doctor')).status, 403);
});

test('a folder empty in the container while the host has content is an error with the --force-recreate route back', async () => {
  const r = await admin.get<DoctorReportT>('/api/doctor');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.ok, false);
  const stacks = byId(r.body, `mount:${inner}/stacks`);
  assert.equal(stacks.status, 'error');
  assert.match(stacks.message, /is empty in the container while the host has 1 entry/);
  assert.match(stacks.message, new RegExp(`on the host "${hostBase}/stacks"`));
  assert.match(stacks.fix ?? '', RECREATE);
  // Fed from another host folder than its own path, which compose never does.
  const source = byId(r.body, 'mount:source');
  assert.equal(source.status, 'error');
  assert.match(source.message, new RegExp(`BASE_DIR "${inner}" in the container is the host's "${hostBase}", not the same path`));
  assert.match(source.fix ?? '', RECREATE);
  // BASE_DIR itself holds the same three folders on both sides.
  assert.equal(byId(r.body, `mount:${inner}`).status, 'ok');
  assert.equal(byId(r.body, 'engine').status, 'ok');
  assert.match(byId(r.body, 'own_container').message, /kadetest-doctor-own/);
});

test('a folder missing in the container while the host has it is told apart from an empty one', async () => {
  rmSync(join(inner, 'backups'), { recursive: true, force: true });
  const r = await admin.get<DoctorReportT>('/api/doctor');
  const backups = byId(r.body, `mount:${inner}/backups`);
  assert.equal(backups.status, 'error');
  assert.match(backups.message, /is missing in the container but exists on the host with 1 entry/);
  assert.match(backups.fix ?? '', RECREATE);
  assert.match(byId(r.body, `mount:${inner}`).message, /inside the container 2 entries, on the host 3 entries/);
  mkdirSync(join(inner, 'backups'));
});

test('a healthy installation has no errors; the folders in use, the per-folder verdicts and the store count are reported', async () => {
  plain = await startTestServer({ kade: { ownContainerId: null } });
  const api = new ApiClient(plain.url);
  await api.loginAs('admin', PASSWORD);
  mkdirSync(join(plain.baseDir, 'stacks', 'web'));
  writeFileSync(join(plain.baseDir, 'stacks', 'web', 'compose.yaml'), 'services: {}\n');
  mkdirSync(join(plain.baseDir, 'stacks', '.trash'));
  const r = await api.get<DoctorReportT>('/api/doctor');
  assert.equal(r.status, 200);
  assert.deepEqual(
    r.body.checks.filter((c) => c.status === 'error'),
    [],
  );
  assert.equal(r.body.ok, true);
  // Kade runs from a checkout here (no container of its own): the words say so (issue #24 item 20).
  assert.equal(byId(r.body, `mount:${plain.baseDir}/stacks`).message, `"${plain.baseDir}/stacks": where Kade runs 2 entries, on the engine's host 2 entries`);
  assert.equal(byId(r.body, 'paths:LIBRARY_DIR').message, `LIBRARY_DIR in use: "${plain.baseDir}/stacks"`);
  const stacks = byId(r.body, 'stacks');
  assert.match(stacks.message, /1 app among 2 entries/);
  assert.deepEqual(stacks.details, ['".trash": not an app: hidden (the name starts with a dot)', '"web": an app (folder)']);
  assert.match(byId(r.body, 'store').message, /^0 apps in the store cache: add a template repository/);
  assert.equal(byId(r.body, 'account').status, 'ok');
});
