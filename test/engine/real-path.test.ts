import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { useEngineSuite } from '../helpers/engine-suite.ts';
import { freePort } from './contract-helpers.ts';

const STACK = 'kadetest-hello';
const suite = useEngineSuite();

test("the engine check finds the engine, the compose variant and the socket's group", async () => {
  const r = await suite.api.get('/api/engine/check');
  assert.equal(r.status, 200);
  assert.equal(r.body.reachable, true);
  assert.match(r.body.version, /^\d+\.\d+/);
  assert.ok(['v1', 'v2'].includes(r.body.compose));
  const socket = (process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').replace(/^unix:\/\//, '');
  assert.equal(r.body.socket_group.socket, socket);
  assert.equal(r.body.socket_group.gid, statSync(socket).gid);
  // This process reaches the engine through the socket: as its owner, or as a member of its group.
  assert.equal(typeof r.body.socket_group.member, 'boolean');
  assert.equal(r.body.socket_group.error, null);
});

test('a template repo served over HTTP syncs into the cache and the store lists its apps', async () => {
  const add = await suite.api.post('/api/repos', { name: 'Basic', url: suite.git.url('basic'), branch: 'main', subdirectory: 'apps' });
  assert.equal(add.status, 202, JSON.stringify(add.body));
  assert.equal(add.body.repo.id, 'basic');
  const job = await suite.api.waitJob(add.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  const repos = await suite.api.get('/api/repos');
  assert.match(repos.body[0].status.commit, /^[0-9a-f]{40}$/);
  assert.equal(repos.body[0].status.version, 'v0.1.00');
  assert.equal(repos.body[0].outdated, false);
  const apps = await suite.api.get('/api/store/apps');
  assert.deepEqual(
    apps.body.map((a: { app: string }) => a.app),
    ['hello', 'notes'],
  );
  const schema = await suite.api.get('/api/store/apps/basic/hello');
  assert.equal(schema.body.values.port, 18080);
});

test('an empty required field is refused naming the field, and no directory is made', async () => {
  const r = await suite.api.post('/api/store/install', { repo: 'basic', app: 'hello', name: STACK, values: { message: '  ' } });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'required_fields');
  assert.deepEqual(r.body.fields, ['message']);
  assert.equal(existsSync(join(suite.kade.baseDir, 'stacks', STACK)), false);
});

test('install renders compose, .env and .svc.json and starts the app; operate and delete it', async () => {
  const port = await freePort();
  const secret = 'S3cret-never-logged';
  const inst = await suite.api.post('/api/store/install', {
    repo: 'basic',
    app: 'hello',
    name: STACK,
    values: { port, message: 'hello from kade', admin_password: secret },
  });
  assert.equal(inst.status, 202, JSON.stringify(inst.body));
  const again = await suite.api.post('/api/store/install', { repo: 'basic', app: 'hello', name: STACK, values: { port, message: 'x' } });
  assert.equal(again.status, 409);
  const job = await suite.api.waitJob(inst.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  assert.ok(!job.log.join('\n').includes(secret), 'the secret is masked in the job log');

  const dir = join(suite.kade.baseDir, 'stacks', STACK);
  const compose = readFileSync(join(dir, 'docker-compose.yml'), 'utf8');
  assert.ok(compose.includes('${ADMIN_PASSWORD}') && !compose.includes(secret));
  assert.ok(compose.includes(`127.0.0.1:${port}:8080`), 'ports stay readable');
  assert.equal(statSync(join(dir, '.env')).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, '.svc.json')).mode & 0o777, 0o600);
  assert.match(readFileSync(join(dir, '.env'), 'utf8'), /^ADMIN_PASSWORD="S3cret-never-logged"$/m);
  const meta = JSON.parse(readFileSync(join(dir, '.svc.json'), 'utf8'));
  assert.ok(!JSON.stringify(meta).includes(secret), '.svc.json holds no secret');
  assert.deepEqual(meta.source.repo, 'basic');
  assert.deepEqual(meta.secret_env, { admin_password: 'ADMIN_PASSWORD' });

  const page = await fetch(`http://127.0.0.1:${port}/`);
  assert.equal((await page.text()).trim(), 'hello from kade');

  const status = async () => (await suite.api.get('/api/stacks')).body.find((s: { name: string }) => s.name === STACK);
  let s = await status();
  assert.equal(s.status, 'running');
  assert.equal(s.url, `http://127.0.0.1:${port}/`);
  assert.deepEqual(s.source, { repo: 'basic', app: 'hello' });
  assert.deepEqual(s.categories, ['developer']);
  const installed = (await suite.api.get('/api/store/apps')).body.find((a: { app: string }) => a.app === 'hello');
  assert.deepEqual(installed.installed, [STACK]);

  for (const [op, expected] of [
    ['stop', 'stopped'],
    ['start', 'running'],
    ['restart', 'running'],
  ] as const) {
    const r = await suite.api.post(`/api/stacks/${STACK}/${op}`);
    assert.equal(r.status, 202);
    const j = await suite.api.waitJob(r.body.job.id);
    assert.equal(j.state, 'succeeded', j.log.join('\n'));
    s = await status();
    assert.equal(s.status, expected, `after ${op}`);
  }
  const detail = await suite.api.get(`/api/stacks/${STACK}`);
  assert.equal(detail.body.containers.length, 1);
  assert.equal(detail.body.containers[0].image, 'kade-test/busybox:1');

  const jobs = await suite.api.get('/api/jobs');
  assert.ok(jobs.body.some((j: { kind: string; stack: string }) => j.kind === 'stack.install' && j.stack === STACK));

  const del = await suite.api.del(`/api/stacks/${STACK}`);
  assert.equal(del.status, 202);
  const dj = await suite.api.waitJob(del.body.job.id);
  assert.equal(dj.state, 'succeeded', dj.log.join('\n'));
  assert.equal(existsSync(dir), false);
  assert.equal(await status(), undefined);
});
