// The compose gate (issue 23, items 1-3 and 14), from the attacker's side against a real Kade and the real engine:
// what compose resolves is what the policy judged, no container reaches the files Kade runs compose from, a file
// changed outside Kade is not run, and a bind source swapped for a link is refused right before the engine mounts it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const execFileP = promisify(execFile);
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 60_000 })).stdout.trim();

const SERVICE = ['    image: kade-test/busybox:1', '    init: true', '    command: ["sleep", "3600"]', '    labels: { kade.test: "1" }'];
const compose = (...lines: string[]) => ['services:', '  app:', ...SERVICE, ...lines, ''].join('\n');

/** Templates an attacker publishes in a store. */
const APPS: Record<string, { compose: string; fields?: unknown[] }> = {
  // Item 1: a default that compose would have taken from Kade's own environment.
  'env-reach': {
    compose: compose(
      '    privileged: "${AUTO_SYNC_ON_BOOT-false}"',
      '    volumes:',
      '      - "${SVC_DATA-./a}:/kade-state"',
      '      - "${BASE_DIR-./b}:/base"',
      '      - "${HOME-./c}:/home-of-kade"',
    ),
  },
  // Item 2: the app's own folder, writable from the container.
  'own-folder': { compose: compose('    volumes: ["./:/stack"]') },
  'own-compose-file': { compose: compose('    volumes: ["./docker-compose.yml:/c.yml"]') },
  // Item 3: a folder and a folder inside it.
  nested: {
    compose: compose('    volumes:', '      - "{{appdata_dir}}/x:/data"', '      - "{{appdata_dir}}/x/sub:/sub"'),
    fields: [{ id: 'appdata_dir', label: { en: 'Data', nl: 'Data' }, type: 'path' }],
  },
  // Item 14: a leading space hid a bind of /etc from the policy.
  'space-etc': { compose: compose('    volumes: [" /etc:/data"]') },
  // A plain app whose files and data the attacker then tampers with.
  plain: {
    compose: compose('    volumes:', '      - "{{appdata_dir}}/data:/data"', '      - "{{appdata_dir}}/sub:/sub"'),
    fields: [{ id: 'appdata_dir', label: { en: 'Data', nl: 'Data' }, type: 'path' }],
  },
};

let git: GitServer;
let kade: TestServer;
let admin: ApiClient;
let operator: ApiClient;
let root: string;
const saved = { SVC_DATA: process.env.SVC_DATA, AUTO_SYNC_ON_BOOT: process.env.AUTO_SYNC_ON_BOOT, BASE_DIR: process.env.BASE_DIR };
const library = () => join(kade.baseDir, 'stacks');

async function install(who: ApiClient, app: string, name: string) {
  return who.post<any>('/api/store/install', { repo: 'gate', app, name, values: {} });
}

async function installed(app: string, name: string): Promise<void> {
  const r = await install(operator, app, name);
  assert.equal(r.status, 202, `install ${app}: ${JSON.stringify(r.body)}`);
  const job = await admin.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
}

async function job(who: ApiClient, path: string): Promise<{ state: string; log: string[]; error: string | null }> {
  const r = await who.post<{ job: { id: string } }>(path, {});
  assert.equal(r.status, 202, `${path}: ${JSON.stringify(r.body)}`);
  return admin.waitJob(r.body.job.id);
}

/** The engine's view of the app's containers: mounts and privileged flag. */
async function inspect(
  project: string,
): Promise<{ running: boolean; privileged: boolean; capAdd: string[]; mounts: { Source: string; Destination: string }[] }[]> {
  const ids = (await docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`])).split('\n').filter(Boolean);
  if (ids.length === 0) return [];
  const all = JSON.parse(await docker(['inspect', ...ids])) as {
    State: { Running: boolean };
    HostConfig: { Privileged: boolean; CapAdd: string[] | null };
    Mounts: { Source: string; Destination: string }[];
  }[];
  return all.map((c) => ({ running: c.State.Running, privileged: c.HostConfig.Privileged, capAdd: c.HostConfig.CapAdd ?? [], mounts: c.Mounts }));
}

async function auditActions(target: string): Promise<string[]> {
  const r = await admin.get<{ entries: { action: string; target: string }[] }>(`/api/audit?q=${encodeURIComponent(target)}&limit=100`);
  return r.body.entries.filter((i) => i.target === target).map((i) => i.action);
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  root = mkdtempSync(join(tmpdir(), 'kade-gate-'));
  for (const [id, a] of Object.entries(APPS)) {
    const dir = join(root, 'repo', 'apps', id);
    mkdirSync(dir, { recursive: true });
    const template = {
      name: `Gate ${id}`,
      description: { en: 'x', nl: 'x' },
      version: '1.0.0',
      metadata: { categories: ['developer'] },
      fields: a.fields ?? [],
    };
    writeFileSync(join(dir, 'template.json'), JSON.stringify(template));
    writeFileSync(join(dir, 'docker-compose.yml'), a.compose);
  }
  git = await startGitServer();
  await git.addRepo('gate', join(root, 'repo'), { branch: 'main' });
  kade = await startTestServer();
  // What Kade's own process holds: before the gate, compose inherited all of it and preferred it to `.env`.
  process.env.SVC_DATA = kade.stateDir;
  process.env.BASE_DIR = kade.baseDir;
  process.env.AUTO_SYNC_ON_BOOT = 'true';
  admin = new ApiClient(kade.url);
  await admin.loginAs();
  await admin.addSyncedRepo('gate', git.url('gate'));
  assert.equal((await admin.post('/api/users', { name: 'oper', password: 'correct-horse-battery', role: 'operator' })).status, 201);
  operator = new ApiClient(kade.url);
  await operator.loginAs('oper');
});

after(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await cleanupLabelled().catch(() => undefined);
  await kade?.close();
  await git?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('what compose resolves', () => {
  test("a template's ${VAR-default} never reaches Kade's own environment: no state, no base folder, no home, no privileged", async () => {
    await installed('env-reach', 'env-reach');
    const [c] = await inspect('env-reach');
    assert.ok(c?.running, 'the app runs');
    assert.equal(c.privileged, false, "AUTO_SYNC_ON_BOOT=true in Kade's environment made the container privileged");
    const dir = join(library(), 'env-reach');
    const sources = Object.fromEntries(c.mounts.map((m) => [m.Destination, m.Source]));
    assert.equal(sources['/kade-state'], join(dir, 'a'), "Kade's state folder was mounted");
    assert.equal(sources['/base'], join(dir, 'b'));
    assert.equal(sources['/home-of-kade'], join(dir, 'c'));
    assert.ok(
      !(
        await docker(['exec', (await docker(['ps', '-q', '--filter', 'label=com.docker.compose.project=env-reach'])).split('\n')[0] ?? '', 'ls', '/kade-state'])
      ).includes('secret.key'),
    );
  });

  test("an operator's extra folder with a variable in it is refused at reconfigure, naming the field", async () => {
    const r = await operator.post('/api/stacks/env-reach/reconfigure', {
      values: {},
      services: { app: { volumes: [{ host: '/${SVC_DATA-x}', container: '/x', read_only: false }] } },
    });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.code, 'forbidden_path');
    assert.equal(r.body.params.reason, 'variable');
    assert.deepEqual(r.body.fields, ['services.app.volumes.0.host']);
  });

  test('.env keys that steer compose itself (COMPOSE_*, DOCKER_*) are refused in the editor and at every compose run', async () => {
    const edit = await admin.put('/api/stacks/env-reach/env', { content: 'COMPOSE_FILE=/tmp/other.yml\n' });
    assert.equal(edit.status, 400, JSON.stringify(edit.body));
    assert.equal(edit.body.code, 'compose_refused');
    assert.equal(edit.body.params.key, 'COMPOSE_FILE');
    // Written by hand (an attacker with the folder): the gate refuses the changed file before compose reads it.
    writeFileSync(join(library(), 'env-reach', '.env'), 'DOCKER_HOST=tcp://127.0.0.1:1\n');
    const restart = await job(operator, '/api/stacks/env-reach/restart');
    assert.equal(restart.state, 'failed');
    assert.match(restart.error ?? '', /\.env/);
  });
});

describe('files a container can reach', () => {
  test("a template that binds the app's own folder or its compose file is refused for everyone, nothing written", async () => {
    for (const app of ['own-folder', 'own-compose-file']) {
      for (const who of [operator, admin]) {
        const r = await install(who, app, `x-${app}`);
        assert.equal(r.status, 400, `${app}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'compose_refused');
        assert.equal(r.body.params.reason, 'own_files');
        assert.ok(!existsSync(join(library(), `x-${app}`)));
      }
    }
  });

  test('a compose file rewritten outside Kade is not run: refused naming the file, audited; stop still works; an admin accepts it', async () => {
    await installed('plain', 'tampered');
    const file = join(library(), 'tampered', 'docker-compose.yml');
    // What a container with the folder writable would have done: give itself the host's root and a capability.
    writeFileSync(file, readFileSync(file, 'utf8').replace('    volumes:\n', '    cap_add: [NET_ADMIN]\n    volumes:\n      - "/:/host"\n'));
    const restart = await job(operator, '/api/stacks/tampered/restart');
    assert.equal(restart.state, 'failed');
    assert.match(restart.error ?? '', /docker-compose\.yml.*changed outside Kade/);
    for (const c of await inspect('tampered')) {
      assert.deepEqual(c.capAdd, []);
      assert.ok(!c.mounts.some((m) => m.Source === '/'), 'the host root was mounted');
    }
    assert.ok((await auditActions('tampered')).includes('files_refuse'));
    const verdict = await operator.get<{ ok: boolean; refusal: { code: string; params: Record<string, string> } | null }>('/api/stacks/tampered/files');
    assert.equal(verdict.body.ok, false);
    assert.equal(verdict.body.refusal?.code, 'stack_files_refused');
    // Stopping never depends on the files: the engine stops the containers.
    const stop = await job(operator, '/api/stacks/tampered/stop');
    assert.equal(stop.state, 'succeeded', stop.log.join('\n'));
    assert.ok((await inspect('tampered')).every((c) => !c.running));
    // Accepting is an admin's, and judged: `/` reaches the app's own files and is refused even when confirmed.
    assert.equal((await operator.post('/api/stacks/tampered/files/accept', {})).status, 403);
    const refused = await admin.post('/api/stacks/tampered/files/accept', { confirm_outside_paths: ['/'] });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.params.reason, 'own_files');
    // The admin takes out the bind, keeps the power (an admin may grant it), and accepts: audited, and it runs.
    writeFileSync(file, readFileSync(file, 'utf8').replace('      - "/:/host"\n', ''));
    assert.equal((await admin.post('/api/stacks/tampered/files/accept', {})).status, 200);
    assert.ok((await auditActions('tampered')).includes('files_accept'));
    const start = await job(operator, '/api/stacks/tampered/start');
    assert.equal(start.state, 'succeeded', start.log.join('\n'));
    assert.ok(
      (await inspect('tampered')).some((c) => c.running && c.capAdd.includes('NET_ADMIN')),
      'the power the admin accepted is the one that runs',
    );
  });

  test('an app from before this change with a writable bind of its own folder is listed by the doctor and not started', async () => {
    const dir = join(library(), 'legacy');
    mkdirSync(dir);
    writeFileSync(join(dir, 'docker-compose.yml'), compose('    volumes: ["./:/stack"]'));
    writeFileSync(join(dir, '.env'), '', { mode: 0o600 });
    const doctor = await admin.get<{ checks: { id: string; status: string; details?: string[] }[] }>('/api/doctor');
    const check = doctor.body.checks.find((c) => c.id === 'app_files');
    assert.equal(check?.status, 'warn');
    assert.ok(
      check?.details?.some((l) => l.startsWith('legacy:') && l.includes('holds the files Kade runs the app from')),
      JSON.stringify(check),
    );
    const start = await job(operator, '/api/stacks/legacy/start');
    assert.equal(start.state, 'failed');
    assert.equal((await inspect('legacy')).length, 0, 'a container was created');
  });
});

describe('checked at use, not only at write', () => {
  test('a template binding a folder and a folder inside it is refused with the reason', async () => {
    const r = await install(operator, 'nested', 'nested');
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.code, 'compose_refused');
    assert.equal(r.body.params.reason, 'nested_bind');
  });

  test("a bind source swapped for a link to / is refused right before the next start; the host's root is never mounted", async () => {
    await installed('plain', 'swapped');
    const data = join(kade.baseDir, 'appdata', 'swapped');
    assert.equal((await job(operator, '/api/stacks/swapped/stop')).state, 'succeeded');
    rmSync(join(data, 'sub'), { recursive: true, force: true });
    symlinkSync('/', join(data, 'sub'));
    const start = await job(operator, '/api/stacks/swapped/start');
    assert.equal(start.state, 'failed');
    // Refused as the place it points to (the allow list follows links), before the engine mounts anything.
    assert.match(start.error ?? '', /sub'? is not allowed|is a link/);
    for (const c of await inspect('swapped')) assert.ok(!c.running && !c.mounts.some((m) => m.Source === '/'));
  });

  test('a short-syntax bind with a leading space (" /etc:/data") is judged as the bind of /etc it is', async () => {
    const r = await install(operator, 'space-etc', 'space-etc');
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.code, 'forbidden_path');
    assert.equal(r.body.params.path, '/etc');
  });
});
