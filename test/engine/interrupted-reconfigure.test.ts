import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { parseEnv } from '../../src/server/stacks/store/env-file.ts';
import { FILES, writePlainRepo } from '../faults/plain-app.ts';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { diedAtFailpoint, type KadeChild, startKadeChild } from '../helpers/kade-child.ts';

// Kade killed at each step of a reconfigure and of an install, then started again: the interrupted job is
// resolved at the start. A reconfigure is rolled back to its snapshot and the app started from the restored
// files, so files and running containers agree (the old values, byte for byte) and the job says so; an install
// leaves either nothing or a complete folder that can be started and removed through the API.
const execFileP = promisify(execFile);
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 60_000 })).stdout.trim();
const APP = 'kadetest-ir-plain';
const PG = 'kadetest-ir-board';

const root = mkdtempSync(join(tmpdir(), 'kade-ir-'));
const stateDir = join(root, 'state');
const baseDir = join(root, 'base');
const stackDir = (name: string) => join(baseDir, 'stacks', name);
const files = (name: string) => FILES.map((f) => readFileSync(join(stackDir(name), f), 'utf8'));
let git: GitServer | undefined;
let live: KadeChild | undefined;

async function start(failpoint?: string): Promise<{ k: KadeChild; api: ApiClient }> {
  const k = await startKadeChild({ stateDir, baseDir, ...(failpoint ? { failpoint } : {}) });
  live = k;
  const api = new ApiClient(k.url);
  await api.loginAs();
  return { k, api };
}

/** The environment the running container of `service` was created with, and whether it runs. */
async function running(api: ApiClient, name: string, service: string): Promise<{ env: Record<string, string>; state: string }> {
  const r = await api.get<{ containers: { id: string; service: string; state: string }[] }>(`/api/stacks/${name}`);
  const c = r.body.containers.find((x) => x.service === service);
  assert.ok(c, `${name} has a ${service} container: ${JSON.stringify(r.body)}`);
  const list = JSON.parse(await docker(['inspect', '--format', '{{json .Config.Env}}', c.id])) as string[];
  return { env: Object.fromEntries(list.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])), state: c.state };
}

/** What the app's files say the container gets: TITLE from the compose file, TOKEN through `.env`. */
function fileValues(name: string): { title: string; token: string } {
  const compose = parse(readFileSync(join(stackDir(name), 'docker-compose.yml'), 'utf8'));
  const env = parseEnv(readFileSync(join(stackDir(name), '.env'), 'utf8'));
  const ref = /^\$\{([A-Z0-9_]+)\}$/.exec(String(compose.services.app.environment.TOKEN))?.[1] ?? '';
  return { title: String(compose.services.app.environment.TITLE), token: env[ref] ?? `(no ${ref} in .env)` };
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  const repoDir = join(root, 'plain-repo');
  writePlainRepo(repoDir);
  git = await startGitServer();
  await git.addRepo('plain', repoDir, { branch: 'main' });
  await git.addRepo('configure', 'test/fixtures/repos/configure', { branch: 'main' });
  const { k, api } = await start();
  await api.addSyncedRepo('Plain', git.url('plain'));
  await api.addSyncedRepo('Configure', git.url('configure'));
  const r = await api.post<{ job: { id: string } }>('/api/store/install', { repo: 'plain', app: 'plain', name: APP, values: {} });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const j = await api.waitJob(r.body.job.id);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  await k.kill();
});

after(async () => {
  await live?.kill();
  await git?.close();
  await cleanupLabelled();
  rmSync(root, { recursive: true, force: true });
});

/**
 * One kill: a reconfigure of APP to new values, Kade killed at `failpoint` (or when `killWhen` returns),
 * then a new Kade. The files must be the old ones byte for byte, the running container must carry them,
 * and the job must end `interrupted` saying it rolled back.
 */
async function killedReconfigure(how: { failpoint?: string; killWhen?: (api: ApiClient, job: string) => Promise<void> }, said: RegExp): Promise<void> {
  const old = files(APP);
  const oldValues = fileValues(APP);
  const first = await start(how.failpoint);
  const r = await first.api.post<{ job: { id: string } }>(`/api/stacks/${APP}/reconfigure`, { values: { title: 'new', token: 'token-new-2' } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const id = r.body.job.id;
  if (how.failpoint) await diedAtFailpoint(first.k);
  else {
    await how.killWhen?.(first.api, id);
    await first.k.kill();
  }

  const { k, api } = await start();
  const j = await api.waitJob(id, 180_000);
  assert.equal(j.state, 'interrupted', j.log.join('\n'));
  assert.match(j.error ?? '', said, j.log.join('\n'));
  assert.equal(j.log.at(-1), `interrupted: ${j.error}`, 'the log closes with what the recovery did');
  assert.ok(!j.log.join('\n').includes('token-new-2'), 'the new secret is masked in the log');
  assert.deepEqual(files(APP), old, 'compose file, .env and .svc.json are the old ones byte for byte');
  const c = await running(api, APP, 'app');
  assert.equal(c.state, 'running', 'the app runs');
  assert.deepEqual({ title: c.env.TITLE, token: c.env.TOKEN }, oldValues, 'the running container carries the values of the files');
  const again = await api.post<{ job: { id: string } }>(`/api/stacks/${APP}/stop`);
  assert.equal(again.status, 202, `the slot is free again: ${JSON.stringify(again.body)}`);
  assert.equal((await api.waitJob(again.body.job.id)).state, 'succeeded');
  const up = await api.post<{ job: { id: string } }>(`/api/stacks/${APP}/start`);
  assert.equal((await api.waitJob(up.body.job.id)).state, 'succeeded');
  await k.kill();
}

const ROLLED_BACK = /^rolled back to the snapshot of \d{4}-\d\d-\d\dT/;

test('killed right after the request: the job ends interrupted and files and app are the old ones', async () => {
  await killedReconfigure({ killWhen: () => sleep(50) }, /^rolled back to the snapshot of |^cut off before the reconfigure changed any file/);
});

test('killed after the snapshot, before any file changed: rolled back, the app runs the old values', async () => {
  await killedReconfigure({ failpoint: 'reconfigure.snapshot' }, ROLLED_BACK);
});

test('killed while the new files are written (compose file new, .env still old): rolled back byte for byte', async () => {
  await killedReconfigure({ failpoint: 'reconfigure.file' }, ROLLED_BACK);
});

test('killed during `up -d` of the new files: rolled back and started again with the old ones', async () => {
  await killedReconfigure(
    {
      killWhen: async (api, id) => {
        const deadline = Date.now() + 60_000;
        for (;;) {
          const log = (await api.get<{ lines: string[] }>(`/api/jobs/${id}/log?offset=0`)).body.lines;
          if (log.includes('starting containers')) break;
          assert.ok(Date.now() < deadline, `the reconfigure reached up -d: ${log.join('\n')}`);
          await sleep(20);
        }
        await sleep(300);
      },
    },
    ROLLED_BACK,
  );
});

async function pgLogin(api: ApiClient, password: string): Promise<boolean> {
  const r = await api.get<{ containers: { id: string; service: string }[] }>(`/api/stacks/${PG}`);
  const id = r.body.containers.find((c) => c.service === 'db')?.id ?? '';
  try {
    await execFileP('docker', ['exec', '-e', `PGPASSWORD=${password}`, id, 'psql', '-h', '127.0.0.1', '-U', 'board', '-d', 'board', '-tAc', 'SELECT 1'], {
      timeout: 30_000,
    });
    return true;
  } catch {
    return false;
  }
}

/** A statement in the app's database over the container's socket (found by its compose labels: Kade may be down); its output. */
async function psql(sql: string): Promise<string> {
  const id = await docker(['ps', '-q', '--filter', `label=com.docker.compose.project=${PG}`, '--filter', 'label=com.docker.compose.service=db']);
  return docker(['exec', id, 'psql', '-U', 'board', '-d', 'board', '-tAc', sql]);
}

async function until(fn: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!(await fn())) {
    assert.ok(Date.now() < deadline, what);
    await sleep(500);
  }
}

test('killed after the database password changed inside PostgreSQL: the password is set back with the old .env', async () => {
  let { k, api } = await start();
  const r = await api.post<{ job: { id: string } }>('/api/store/install', {
    repo: 'configure',
    app: 'board',
    name: PG,
    values: { port: 18381, title: 'First', db_password: 'pg-old-1' },
  });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.equal((await api.waitJob(r.body.job.id, 180_000)).state, 'succeeded');
  await until(() => pgLogin(api, 'pg-old-1'), 'PostgreSQL accepts the install password');
  await psql("CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'before the reconfigure')");
  await k.kill();

  const old = files(PG);
  const first = await start('reconfigure.up');
  const rc = await first.api.post<{ job: { id: string } }>(`/api/stacks/${PG}/reconfigure`, { values: { db_password: 'pg-new-2' } });
  assert.equal(rc.status, 202, JSON.stringify(rc.body));
  await diedAtFailpoint(first.k);
  // What a new version's migration would have written once its database was touched: gone after the recovery.
  await psql("INSERT INTO notes VALUES (2, 'after the backup')");

  ({ k, api } = await start());
  const j = await api.waitJob(rc.body.job.id, 180_000);
  assert.equal(j.state, 'interrupted', j.log.join('\n'));
  assert.match(j.error ?? '', ROLLED_BACK);
  assert.ok(
    j.log.some((l) => l === "set the password of 'board' in 'db' back to the one in the snapshot"),
    j.log.join('\n'),
  );
  // The reconfigure made a backup first; the recovery loads its dump, as the reconfigure's own failure does.
  assert.match(j.error ?? '', /; the databases of 'db' hold the data of backup \S+ again$/, j.log.join('\n'));
  assert.equal(await psql("SELECT string_agg(body, ',' ORDER BY id) FROM notes"), 'before the reconfigure');
  assert.ok(!j.log.join('\n').includes('pg-new-2') && !j.log.join('\n').includes('pg-old-1'), 'no password in the log');
  assert.deepEqual(files(PG), old, 'the old .env is back');
  await until(() => pgLogin(api, 'pg-old-1'), 'PostgreSQL accepts the old password again');
  assert.equal(await pgLogin(api, 'pg-new-2'), false, 'the new password no longer works');
  const del = await api.del<{ job: { id: string } }>(`/api/stacks/${PG}?remove_data=1`);
  assert.equal((await api.waitJob(del.body.job.id)).state, 'succeeded');
  await k.kill();
});

test('an install killed while its temp folder is written leaves nothing: the folder is removed at start and the job says so', async () => {
  const name = 'kadetest-ir-half';
  const first = await start('install.temp');
  const r = await first.api.post<{ job: { id: string } }>('/api/store/install', { repo: 'plain', app: 'plain', name, values: {} });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await diedAtFailpoint(first.k);
  assert.ok(
    readdirSync(join(baseDir, 'stacks')).some((n) => n.startsWith(`.tmp-${name}-`)),
    'the crash left a half-written temp folder',
  );

  const { k, api } = await start();
  const j = await api.waitJob(r.body.job.id);
  assert.equal(j.state, 'interrupted');
  assert.equal(j.error, "the install was cut off before the app's folder was written: nothing was left behind");
  assert.ok(j.log.some((l) => l.startsWith(`removed the half-written folder .tmp-${name}-`)));
  assert.deepEqual(
    readdirSync(join(baseDir, 'stacks')).filter((n) => n.includes(name)),
    [],
  );
  assert.equal((await api.get(`/api/stacks/${name}`)).status, 404);
  await k.kill();
});

test('an install killed after its folder was written and before `up`: restart creates the containers, remove removes the app', async () => {
  const name = 'kadetest-ir-nocontainers';
  const first = await start('install.folder');
  const r = await first.api.post<{ job: { id: string } }>('/api/store/install', { repo: 'plain', app: 'plain', name, values: {} });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await diedAtFailpoint(first.k);

  const { k, api } = await start();
  const j = await api.waitJob(r.body.job.id);
  assert.equal(j.state, 'interrupted');
  assert.equal(j.error, "the install was cut off after the app's folder was written: start the app or remove it");
  const detail = await api.get<{ containers: unknown[] }>(`/api/stacks/${name}`);
  assert.equal(detail.status, 200);
  assert.deepEqual(detail.body.containers, [], 'the app has no containers');

  const restart = await api.post<{ job: { id: string } }>(`/api/stacks/${name}/restart`);
  assert.equal(restart.status, 202, JSON.stringify(restart.body));
  const rj = await api.waitJob(restart.body.job.id);
  assert.equal(rj.state, 'succeeded', rj.log.join('\n'));
  assert.ok(rj.log.includes('the app has no containers yet: creating them'), rj.log.join('\n'));
  assert.equal((await running(api, name, 'app')).state, 'running');

  const del = await api.del<{ job: { id: string } }>(`/api/stacks/${name}`);
  assert.equal((await api.waitJob(del.body.job.id)).state, 'succeeded');
  assert.equal(existsSync(stackDir(name)), false);
  await k.kill();
});
