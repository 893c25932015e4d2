// The compose policy at every entry point: each hazard is tried through install (a template), reconfigure
// (the template changed after the install), the compose editor and adopt. Refused with a clear problem,
// never a 500, and nothing written: no folder, no link, no job, the app's files byte for byte as they were.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { emptyMeta } from '../../src/server/stacks/store/stack-files.ts';
import { ApiClient } from '../helpers/client.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

type Kind = 'power' | 'bind' | 'yaml' | 'label';
interface Hazard {
  id: string;
  kind: Kind;
  /** Lines under the service `app` (indented four spaces). */
  service?: string;
  /** Top-level YAML before `services:` (anchors) or after it (volumes, secrets). */
  head?: string;
  tail?: string;
  /** The whole service block, for hazards that replace its shape (merge keys, duplicate keys). */
  block?: string;
}

const bomb = (() => {
  const lines = ['x-a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++)
    lines.push(
      `x-${'abcdefghij'[i]}: &${'abcdefghij'[i]} [${Array(10)
        .fill(`*${'abcdefghij'[i - 1]}`)
        .join(',')}]`,
    );
  return lines.join('\n');
})();

const HAZARDS: Hazard[] = [
  { id: 'privileged', kind: 'power', service: '    privileged: true' },
  { id: 'net-host', kind: 'power', service: '    network_mode: host' },
  { id: 'net-container', kind: 'power', service: '    network_mode: "container:kade"' },
  { id: 'pid-host', kind: 'power', service: '    pid: host' },
  { id: 'ipc-host', kind: 'power', service: '    ipc: host' },
  { id: 'userns-host', kind: 'power', service: '    userns_mode: host' },
  { id: 'cap-sys-admin', kind: 'power', service: '    cap_add: [SYS_ADMIN]' },
  { id: 'cap-net-admin', kind: 'power', service: '    cap_add: [NET_ADMIN]' },
  { id: 'cap-all', kind: 'power', service: '    cap_add: [ALL]' },
  { id: 'seccomp-unconfined', kind: 'power', service: '    security_opt: ["seccomp=unconfined"]' },
  { id: 'apparmor-unconfined', kind: 'power', service: '    security_opt: ["apparmor=unconfined"]' },
  { id: 'anchor', kind: 'power', head: 'x-caps: &caps [SYS_ADMIN]', service: '    cap_add: *caps' },
  { id: 'merge-key', kind: 'power', head: 'x-base: &base\n  privileged: true', block: '  app:\n    <<: *base\n    image: kade-test/busybox:1' },
  { id: 'device-kvm', kind: 'bind', service: '    devices: ["/dev/kvm:/dev/kvm"]' },
  { id: 'bind-root', kind: 'bind', service: '    volumes: ["/:/host"]' },
  { id: 'bind-home', kind: 'bind', service: '    volumes: ["${HOME}/.ssh:/ssh"]' },
  { id: 'bind-pwd', kind: 'bind', service: '    volumes: ["$PWD/../../..:/up"]' },
  { id: 'driver-opts', kind: 'bind', service: '    volumes: ["etc:/x"]', tail: 'volumes:\n  etc:\n    driver_opts: { type: none, o: bind, device: /etc }' },
  { id: 'env-file-out', kind: 'bind', service: '    env_file: /etc/hostname' },
  { id: 'secret-out', kind: 'bind', service: '    secrets: [s]', tail: 'secrets:\n  s:\n    file: /etc/hostname' },
  { id: 'alias-bomb', kind: 'yaml', head: bomb },
  { id: 'duplicate-key', kind: 'yaml', block: '  app:\n    image: kade-test/busybox:1\n    privileged: false\n    privileged: true' },
  { id: 'label-project', kind: 'label', service: '    labels: { com.docker.compose.project: other-app }' },
  { id: 'label-workdir', kind: 'label', service: '    labels: ["com.docker.compose.project.working_dir=/opt/kade/stacks/other"]' },
  { id: 'label-kade', kind: 'label', service: '    labels: { kade.owner: other-app }' },
];

/** A compose file with the hazard; `name` makes adopt's project name independent of the engine. */
function composeOf(h: Hazard, name?: string): string {
  const svc =
    h.block ??
    [
      '  app:',
      '    image: kade-test/busybox:1',
      '    init: true',
      '    command: ["sleep", "3600"]',
      '    labels: { kade.test: "1" }',
      ...(h.service ? [h.service] : []),
    ]
      .join('\n')
      .replace('    labels: { kade.test: "1" }\n    labels:', '    labels:');
  return [...(name ? [`name: ${name}`] : []), ...(h.head ? [h.head] : []), 'services:', svc, ...(h.tail ? [h.tail] : [])].join('\n').concat('\n');
}

const PLAIN = 'services:\n  app:\n    image: kade-test/busybox:1\n    init: true\n    command: ["sleep", "3600"]\n';
const template = (id: string) => ({
  name: `Hazard ${id}`,
  description: { en: 'x', nl: 'x' },
  version: '1.0.0',
  metadata: { categories: ['developer'] },
  fields: [],
});

/** What each kind answers an operator, per entry point. */
const EXPECT: Record<Kind, { status: number; codes: string[] }> = {
  power: { status: 403, codes: ['app_powers_refused'] },
  bind: { status: 400, codes: ['forbidden_path'] },
  // The renderer reads a template's YAML first; an invalid template may also be left out of the store.
  yaml: { status: 400, codes: ['compose_invalid', 'template_invalid'] },
  label: { status: 400, codes: ['compose_refused'] },
};

let git: GitServer;
let kade: TestServer;
let admin: ApiClient;
let operator: ApiClient;
let root: string;
const library = () => join(kade.baseDir, 'stacks');

/** The state a refused request must leave alone: the folders of the library and the number of jobs. */
async function state() {
  const jobs = (await admin.get<unknown[]>('/api/jobs')).body.length;
  return { entries: readdirSync(library()).sort(), jobs };
}

/** Hand-writes an installed app whose template (in the hazards repo) may have changed since. */
function writeStack(name: string, app: string | null, compose = PLAIN): string {
  const dir = join(library(), name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'docker-compose.yml'), compose);
  writeFileSync(join(dir, '.env'), '', { mode: 0o600 });
  const meta = emptyMeta(new Date(0).toISOString(), { source: app ? { repo: 'hazards', app, commit: null } : null, template_version: '1.0.0' });
  writeFileSync(join(dir, '.svc.json'), `${JSON.stringify(meta)}\n`, { mode: 0o600 });
  return dir;
}

function assertProblem(r: { status: number; body: any }, want: { status: number; codes: string[] }, what: string): void {
  assert.notEqual(r.status, 500, `${what}: 500 ${JSON.stringify(r.body)}`);
  assert.equal(r.status, want.status, `${what}: ${JSON.stringify(r.body)}`);
  assert.ok(want.codes.includes(r.body.code), `${what}: code ${r.body.code}, want ${want.codes.join('|')}: ${r.body.detail}`);
  assert.equal(typeof r.body.detail, 'string', what);
  assert.ok(r.body.detail.length > 10, `${what}: a problem that says what is wrong`);
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'kade-compose-policy-'));
  const repo = join(root, 'repo', 'apps');
  for (const h of HAZARDS) {
    mkdirSync(join(repo, h.id), { recursive: true });
    writeFileSync(join(repo, h.id, 'template.json'), JSON.stringify(template(h.id)));
    writeFileSync(join(repo, h.id, 'docker-compose.yml'), composeOf(h));
  }
  git = await startGitServer();
  await git.addRepo('hazards', join(root, 'repo'), { branch: 'main' });
  kade = await startTestServer();
  admin = new ApiClient(kade.url);
  await admin.loginAs();
  await admin.addSyncedRepo('hazards', git.url('hazards'));
  assert.equal((await admin.post('/api/users', { name: 'oper', password: 'correct-horse-battery', role: 'operator' })).status, 201);
  operator = new ApiClient(kade.url);
  await operator.loginAs('oper');
});

after(async () => {
  await kade?.close();
  await git?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('compose policy at every entry point', () => {
  test(`install through a template: ${HAZARDS.length} hazards refused for an operator, nothing written`, async () => {
    for (const h of HAZARDS) {
      const before = await state();
      const r = await operator.post('/api/store/install', { repo: 'hazards', app: h.id, name: `inst-${h.id}`, values: {} });
      const want = h.kind === 'yaml' && r.status === 404 ? { status: 404, codes: ['not_found'] } : EXPECT[h.kind];
      assertProblem(r, want, `install ${h.id}`);
      assert.deepEqual(await state(), before, `install ${h.id} left something behind`);
    }
  });

  test(`reconfigure after the template changed: ${HAZARDS.length} hazards refused for an operator, files untouched`, async () => {
    for (const h of HAZARDS) {
      const dir = writeStack(`reconf-${h.id}`, h.id);
      const files = ['docker-compose.yml', '.env', '.svc.json'].map((f) => readFileSync(join(dir, f), 'utf8'));
      const before = await state();
      const r = await operator.post(`/api/stacks/reconf-${h.id}/reconfigure`, { values: {} });
      // A template the store could not read has no form to reconfigure with: refused as a conflict.
      const want = h.kind === 'yaml' && r.status === 409 ? { status: 409, codes: ['conflict'] } : EXPECT[h.kind];
      assertProblem(r, want, `reconfigure ${h.id}`);
      assert.deepEqual(await state(), before, `reconfigure ${h.id} started something`);
      assert.deepEqual(
        ['docker-compose.yml', '.env', '.svc.json'].map((f) => readFileSync(join(dir, f), 'utf8')),
        files,
        `reconfigure ${h.id} changed files`,
      );
    }
  });

  test(`compose editor: an operator is refused every hazard; an admin every hazard but the powers an admin may grant`, async () => {
    const dir = writeStack('editor-target', null);
    for (const h of HAZARDS) {
      const text = composeOf(h);
      // Operators use the editor (issue #24 item 4), judged as themselves: powers are an admin's to grant.
      const op = await operator.put('/api/stacks/editor-target/compose', { content: text });
      assertProblem(op, EXPECT[h.kind], `editor (operator) ${h.id}`);
      assert.equal(readFileSync(join(dir, 'docker-compose.yml'), 'utf8'), PLAIN, `editor (operator) ${h.id} changed the file`);
      const r = await admin.put('/api/stacks/editor-target/compose', { content: text });
      if (h.kind === 'power') {
        assert.equal(r.status, 200, `editor (admin) ${h.id}: ${JSON.stringify(r.body)}`);
        writeFileSync(join(dir, 'docker-compose.yml'), PLAIN);
        continue;
      }
      assertProblem(r, EXPECT[h.kind], `editor (admin) ${h.id}`);
      assert.equal(readFileSync(join(dir, 'docker-compose.yml'), 'utf8'), PLAIN, `editor ${h.id} changed the file`);
    }
  });

  test(`adopt: ${HAZARDS.length} hazards refused for an operator, no link and no metadata written`, async () => {
    for (const h of HAZARDS) {
      const folder = join(kade.baseDir, 'elsewhere', h.id);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'docker-compose.yml'), composeOf(h, `adopt-${h.id}`));
      const before = await state();
      const r = await operator.post('/api/stacks/adopt', { path: folder, name: `adopt-${h.id}` });
      assertProblem(r, EXPECT[h.kind], `adopt ${h.id}`);
      assert.deepEqual(await state(), before, `adopt ${h.id} left something behind`);
    }
  });

  test('snapshot restore: a snapshot of a hand-edited file with an ownership label is not brought back', async () => {
    const spoof = HAZARDS.find((h) => h.id === 'label-project') as Hazard;
    const dir = writeStack('restore-target', null, composeOf(spoof));
    // Saving a new compose file keeps the files as they were (the hand-edited compose) as a snapshot. (Saving the .env
    // no longer can: it is judged with the compose file it goes with, and the label refuses it.)
    assertProblem(await admin.put('/api/stacks/restore-target/env', { content: 'A=1\n' }), EXPECT.label, '.env beside a compose file with an ownership label');
    const edited = await admin.put('/api/stacks/restore-target/compose', { content: PLAIN });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    const snaps = (await admin.get<{ id: string; reason: string }[]>('/api/stacks/restore-target/snapshots')).body;
    const old = snaps.find((x) => x.reason === 'compose_edit');
    assert.ok(old, JSON.stringify(snaps));
    const r = await admin.post(`/api/stacks/restore-target/snapshots/${old.id}/restore`, {});
    assertProblem(r, EXPECT.label, 'restore of a snapshot with an ownership label');
    assert.equal(readFileSync(join(dir, 'docker-compose.yml'), 'utf8'), PLAIN);
  });

  test('ALLOWED_HOST_DIRS (bind policy) lets an operator use a host folder an admin listed, and nothing beside it', async () => {
    const media = mkdtempSync(join(tmpdir(), 'kade-media-'));
    const folder = join(kade.baseDir, 'elsewhere', 'media-app');
    mkdirSync(folder, { recursive: true });
    const bind = (src: string) => `services:\n  app:\n    image: kade-test/busybox:1\n    volumes: ["${src}:/media:ro"]\n`;
    writeFileSync(join(folder, 'docker-compose.yml'), bind(media));
    try {
      assertProblem(await operator.post('/api/stacks/adopt', { path: folder, name: 'media-app' }), EXPECT.bind, 'adopt before the folder is allowed');
      assert.equal((await admin.put('/api/settings', { ALLOWED_HOST_DIRS: [media] })).status, 200);
      writeFileSync(join(folder, 'docker-compose.yml'), bind(`${media}/../${media.split('/').pop()}-other`));
      assertProblem(await operator.post('/api/stacks/adopt', { path: folder, name: 'media-app' }), EXPECT.bind, 'a sibling of the allowed folder');
      writeFileSync(join(folder, 'docker-compose.yml'), bind(media));
      const r = await operator.post('/api/stacks/adopt', { path: folder, name: 'media-app' });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    } finally {
      assert.equal((await admin.put('/api/settings', { ALLOWED_HOST_DIRS: [] })).status, 200);
      rmSync(media, { recursive: true, force: true });
    }
  });

  test('the install review names each power before anything is installed, and says whether the user may install it', async () => {
    const ask = (c: ApiClient, app: string) => c.post<{ powers: unknown[]; allowed: boolean }>(`/api/store/apps/hazards/${app}/powers`, { values: {} });
    const op = await ask(operator, 'merge-key');
    assert.equal(op.status, 200, JSON.stringify(op.body));
    assert.deepEqual(op.body, { powers: [{ service: 'app', power: 'privileged', value: 'true' }], allowed: false });
    assert.deepEqual((await ask(admin, 'merge-key')).body.allowed, true);
    assert.deepEqual((await ask(operator, 'net-host')).body.powers, [{ service: 'app', power: 'network_mode', value: 'host' }]);
    assert.deepEqual((await ask(operator, 'device-kvm')).body, { powers: [{ service: 'app', power: 'devices', value: '/dev/kvm' }], allowed: true });
    assert.deepEqual((await ask(operator, 'bind-root')).body, { powers: [], allowed: true });
    assertProblem(await ask(operator, 'label-kade'), EXPECT.label, 'powers of an app with an ownership label');
  });

  test('ALLOW_PRIVILEGED_APPS=everyone lets an operator take an app with powers; back to admins refuses it again', async () => {
    const folder = join(kade.baseDir, 'elsewhere', 'allowed-privileged');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'docker-compose.yml'), composeOf(HAZARDS[0] as Hazard));
    assert.equal((await admin.put('/api/settings', { ALLOW_PRIVILEGED_APPS: 'everyone' })).status, 200);
    const r = await operator.post('/api/stacks/adopt', { path: folder, name: 'allowed-privileged' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal((await admin.put('/api/settings', { ALLOW_PRIVILEGED_APPS: 'admins' })).status, 200);
    const install = await operator.post('/api/store/install', { repo: 'hazards', app: 'privileged', name: 'inst-again', values: {} });
    assertProblem(install, EXPECT.power, 'install after the setting went back');
    assert.match(install.body.detail, /privileged/);
    assert.equal(install.body.params.setting, 'ALLOW_PRIVILEGED_APPS');
  });
});
