import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { ADMIN, createStacksKit, OPERATOR, type StacksKit } from '../../../../test/helpers/stacks-kit.ts';
import { AppError } from '../../core/errors.ts';

// Install over the fakes (test/helpers/stacks-kit.ts): the folder written whole or not at all, sealed as the
// installer's, the containers started; failures of the engine and of the disk as the user sees them.

async function kit(t: { after(fn: () => void): void }): Promise<StacksKit> {
  const k = await createStacksKit();
  t.after(() => k.dispose());
  return k;
}

const entries = (k: StacksKit, name: string) => [...k.tree().keys()].filter((p) => p.includes(name)).map((p) => p.slice(k.paths.library.length + 1));

test("an install writes the app's three files with their modes, seals them as the installer's and starts the app", async (t) => {
  const k = await kit(t);
  const job = await k.install('notes', 'notes', { title: 'My notes' });
  assert.equal(job.state, 'succeeded', job.error ?? '');

  const dir = join(k.paths.library, 'notes');
  const files = k.tree();
  assert.deepEqual(entries(k, 'notes'), ['notes', 'notes/.env', 'notes/.svc.json', 'notes/docker-compose.yml'], 'no temp folder is left');
  assert.deepEqual(
    ['docker-compose.yml', '.env', '.svc.json'].map((f) => (files.get(join(dir, f)) as { mode: number }).mode),
    [0o644, 0o600, 0o600],
  );
  const compose = parse(k.read(join(dir, 'docker-compose.yml')) ?? '');
  assert.equal(compose.services.web.environment.TITLE, 'My notes');
  const meta = JSON.parse(k.read(join(dir, '.svc.json')) ?? '');
  assert.deepEqual(meta.source, { repo: 'store', app: 'notes', commit: meta.source.commit });
  assert.equal(meta.values.title, 'My notes');

  assert.deepEqual(k.stacks.filesVerdict(ADMIN, 'notes'), { ok: true, refusal: null }, 'compose runs the files as they are');
  assert.deepEqual(
    k.compose.calls.filter((c) => c.project === 'notes').map((c) => c.op),
    ['validate', 'up'],
  );
  const web = (await k.engine.listContainers({ project: 'notes' })).find((c) => c.service === 'web');
  assert.equal(web?.state, 'running');
  const env = ((await k.engine.inspectContainer(web?.id ?? '')) as { Config: { Env: string[] } }).Config.Env;
  assert.ok(env.includes('TITLE=My notes'), env.join(' '));
  assert.deepEqual(
    k.events.filter((e) => e.type === 'stack.installed').map((e) => [e.target, e.status]),
    [['notes', 'ok']],
  );
});

test('the engine failing on the third call of the start fails the job with its words; the folder stays whole and starts later', async (t) => {
  const k = await kit(t);
  // From here: the network listing, the network made, then the image looked at fails.
  k.engine.failOn('*', { nth: 3 });
  const job = await k.install('notes');
  assert.equal(job.state, 'failed');
  assert.match(job.error ?? '', /container engine not reachable/);
  assert.deepEqual(
    k.events.filter((e) => e.type === 'stack.installed').map((e) => e.status),
    ['failed'],
  );
  assert.deepEqual(entries(k, 'notes'), ['notes', 'notes/.env', 'notes/.svc.json', 'notes/docker-compose.yml'], 'the folder is complete');
  assert.deepEqual(await k.running('notes'), {}, 'no container runs');

  const start = await k.done(k.stacks.operate(ADMIN, 'notes', 'start'));
  assert.equal(start.state, 'succeeded', start.error ?? '');
  assert.deepEqual(Object.keys(await k.running('notes')), ['web']);
});

test('a full disk fails the install before any folder exists: nothing is left and the name is free again', async (t) => {
  const k = await kit(t);
  k.io.faults.full = true;
  const job = await k.install('notes');
  assert.equal(job.state, 'failed');
  assert.match(job.error ?? '', /^disk full: there is no space left to write /);
  assert.deepEqual(entries(k, 'notes'), [], 'no app folder and no half-written temp folder');
  assert.equal(
    k.compose.calls.some((c) => c.project === 'notes'),
    false,
    'compose never ran',
  );

  k.io.faults.full = false;
  assert.equal((await k.install('notes')).state, 'succeeded', 'the name is free');
});

test('a name in use is refused before any job, and the app of that name is left as it is', async (t) => {
  const k = await kit(t);
  await k.install('notes', 'notes', { title: 'First' });
  const before = k.tree();
  assert.throws(
    () => k.stacks.install(ADMIN, { repo: 'store', app: 'board', name: 'notes', values: {} }),
    (err: unknown) => err instanceof AppError && err.code === 'name_taken' && err.fields?.[0] === 'name',
  );
  assert.deepEqual(k.tree(), before);
  assert.equal(k.jobs.list().filter((j) => j.kind === 'stack.install').length, 1, 'no second install job');
});

test('an app that binds the engine socket: refused for an operator, an admin confirms the socket, the power is audited and sealed', async (t) => {
  const k = await kit(t);
  const refusedAs = (actor: typeof ADMIN, confirm?: string[]) => {
    try {
      k.stacks.install(actor, { repo: 'store', app: 'dash', name: 'dash', values: {}, ...(confirm ? { confirm_outside_paths: confirm } : {}) });
    } catch (e) {
      return e as AppError;
    }
    assert.fail('the install was not refused');
  };
  assert.equal(refusedAs(OPERATOR).code, 'app_powers_refused');
  assert.match(refusedAs(OPERATOR).message, /engine socket \/var\/run\/docker\.sock/);
  // The socket is no hole in the allow list: the admin names it, once, and an operator may not even then.
  const admin = refusedAs(ADMIN);
  assert.equal(admin.code, 'forbidden_path');
  assert.equal(admin.params.confirm, '/var/run/docker.sock', 'the time zone file bound read-only needs no confirmation');
  assert.equal(entries(k, 'dash').length, 0, 'nothing written');

  const job = await k.done(k.stacks.install(ADMIN, { repo: 'store', app: 'dash', name: 'dash', values: {}, confirm_outside_paths: ['/var/run/docker.sock'] }));
  assert.equal(job.state, 'succeeded', job.error ?? '');
  const audited = k.events.filter((e) => e.type === 'stack.powers_allowed' || e.type === 'stack.outside_path_allowed');
  assert.deepEqual(
    audited.map((e) => [e.type, e.actor?.user, e.detail?.powers ?? e.detail?.paths]),
    [
      ['stack.outside_path_allowed', 'ada', '/var/run/docker.sock'],
      ['stack.powers_allowed', 'ada', 'engine socket /var/run/docker.sock'],
    ],
  );
  const seal = JSON.parse(k.read(join(k.paths.state, 'seals', 'dash.json')) ?? '{}');
  assert.deepEqual(seal.approved.powers, ['web:engine_socket:/var/run/docker.sock']);
  // What the admin set up stays usable by an operator.
  const restart = await k.done(k.stacks.operate(OPERATOR, 'dash', 'restart'));
  assert.equal(restart.state, 'succeeded', restart.error ?? '');
});

test("an imported app's inline config is written as a file of its folder with the compose file, bound read-only", async (t) => {
  const k = await kit(t);
  const job = await k.install('proxy', 'casa-proxy');
  assert.equal(job.state, 'succeeded', job.error ?? '');
  const dir = join(k.paths.library, 'proxy');
  assert.deepEqual(entries(k, 'proxy'), ['proxy', 'proxy/.env', 'proxy/.svc.json', 'proxy/configs', 'proxy/configs/site', 'proxy/docker-compose.yml']);
  assert.equal(k.read(join(dir, 'configs', 'site')), 'listen 80;\n');
  const compose = parse(k.read(join(dir, 'docker-compose.yml')) ?? '');
  assert.deepEqual(compose.services.web.volumes, ['./configs/site:/etc/site.conf:ro']);
  assert.equal(compose.configs, undefined, 'no configs key: compose v1 ignores it');
  assert.deepEqual(k.stacks.filesVerdict(ADMIN, 'proxy'), { ok: true, refusal: null });
  assert.deepEqual(Object.keys(await k.running('proxy')), ['web']);
});
