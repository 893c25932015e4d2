import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { ADMIN, createStacksKit, SHARED, type StacksKit } from '../../../../test/helpers/stacks-kit.ts';

// Connect over the fakes (test/helpers/stacks-kit.ts): an app joins or leaves Kade's shared network, kept in
// `.svc.json` and applied to the compose file; when compose refuses, every file goes back byte for byte and the app
// runs as before.

async function notes(t: { after(fn: () => void): void }): Promise<StacksKit> {
  const k = await createStacksKit();
  t.after(() => k.dispose());
  const job = await k.install('notes');
  assert.equal(job.state, 'succeeded', job.error ?? '');
  return k;
}

const file = (k: StacksKit, f: string) => k.read(join(k.paths.library, 'notes', f)) ?? '';

/** The networks the app's running web container is attached to. */
async function networksOfWeb(k: StacksKit): Promise<string[]> {
  const web = (await k.engine.listContainers({ project: 'notes' })).find((c) => c.service === 'web' && c.state === 'running');
  assert.ok(web, 'web runs');
  return Object.keys(web.networks ?? {}).sort();
}

test('joining the shared network: kept in .svc.json, joined in the compose file, the network made and the container on it', async (t) => {
  const k = await notes(t);
  const job = await k.done(k.stacks.connect(ADMIN, 'notes', { network: SHARED }));
  assert.equal(job.state, 'succeeded', k.jobs.readLog(job.id, 0).lines.join('\n'));

  const meta = JSON.parse(file(k, '.svc.json'));
  assert.deepEqual(meta.networks, [SHARED]);
  assert.deepEqual(meta.services.web.networks, { [SHARED]: {} });
  const compose = parse(file(k, 'docker-compose.yml'));
  assert.deepEqual(compose.networks[SHARED], { external: true });
  assert.ok(SHARED in compose.services.web.networks, JSON.stringify(compose.services.web.networks));
  assert.ok(
    (await k.engine.listNetworks()).some((n) => n.name === SHARED),
    'the shared network exists in the engine',
  );
  assert.deepEqual(await networksOfWeb(k), ['kade-shared', 'notes_default']);
  assert.deepEqual(k.stacks.usingNetwork(SHARED), ['notes']);
  assert.deepEqual(k.stacks.filesVerdict(ADMIN, 'notes'), { ok: true, refusal: null }, 'the new files are sealed');
});

test('leaving the shared network takes it out of .svc.json and the compose file; the container is off it', async (t) => {
  const k = await notes(t);
  const before = { compose: file(k, 'docker-compose.yml'), meta: JSON.parse(file(k, '.svc.json')) };
  assert.equal((await k.done(k.stacks.connect(ADMIN, 'notes', { network: SHARED }))).state, 'succeeded');
  const job = await k.done(k.stacks.connect(ADMIN, 'notes', { network: SHARED, disconnect: true }));
  assert.equal(job.state, 'succeeded', k.jobs.readLog(job.id, 0).lines.join('\n'));

  assert.equal(file(k, 'docker-compose.yml'), before.compose, 'the compose file is as the install wrote it');
  assert.deepEqual(JSON.parse(file(k, '.svc.json')).networks, []);
  assert.deepEqual(k.stacks.usingNetwork(SHARED), []);
  assert.deepEqual(await networksOfWeb(k), ['notes_default']);
});

test('compose refusing to start the joined app puts every file back byte for byte; the app runs as before', async (t) => {
  const k = await notes(t);
  const before = k.tree();
  const containers = await k.running('notes');
  k.compose.failOn('up', { nth: 1 });
  const job = await k.done(k.stacks.connect(ADMIN, 'notes', { network: SHARED }));
  assert.equal(job.state, 'failed');
  assert.match(job.error ?? '', /fake failure/);

  assert.deepEqual(k.tree(), before, 'compose file, .env and .svc.json as they were');
  assert.deepEqual(k.stacks.usingNetwork(SHARED), []);
  assert.deepEqual(k.stacks.filesVerdict(ADMIN, 'notes'), { ok: true, refusal: null });
  const log = k.jobs.readLog(job.id, 0).lines;
  assert.ok(log.includes('the previous configuration runs again'), log.join('\n'));
  assert.deepEqual(await k.running('notes'), containers, 'the same container runs');
  assert.deepEqual(await networksOfWeb(k), ['notes_default']);
});

test('the engine refusing the network puts every file back before compose starts anything', async (t) => {
  const k = await notes(t);
  const before = k.tree();
  k.engine.failOn('createNetwork', { nth: 1 });
  const job = await k.done(k.stacks.connect(ADMIN, 'notes', { network: SHARED }));
  assert.equal(job.state, 'failed');
  assert.deepEqual(k.tree(), before);
  assert.deepEqual(
    k.compose.calls
      .filter((c) => c.project === 'notes')
      .slice(-1)
      .map((c) => c.op),
    ['validate'],
    'compose never started the new files',
  );
});

test('a network Kade does not manage, or one the app is not on, is refused before any job', async (t) => {
  const k = await notes(t);
  const before = k.tree();
  await assert.rejects(k.stacks.connect(ADMIN, 'notes', { network: 'host-net' }), { code: 'not_found' });
  await assert.rejects(k.stacks.connect(ADMIN, 'notes', { network: SHARED, disconnect: true }), { code: 'validation' });
  assert.deepEqual(k.tree(), before);
  assert.equal(k.jobs.list().filter((j) => j.kind === 'stack.connect').length, 0);
});
