import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ADMIN, createStacksKit, IMAGES, OPERATOR, type StacksKit } from '../../../../test/helpers/stacks-kit.ts';
import { COMPOSE_PROJECT_LABEL } from '../../engine/engine.ts';

// Remove over the fakes (test/helpers/stacks-kit.ts): the app's containers and folder go; with "remove data" exactly
// what GET /api/stacks/<name>/data lists goes with them (its DATA_DIR folder and named volumes), nothing of another
// app's; an adopted app only loses Kade's reference to it.

/** `notes` installed with data in DATA_DIR/notes; another app's data folder and volume beside it. */
async function notes(t: { after(fn: () => void): void }): Promise<StacksKit> {
  const k = await createStacksKit();
  t.after(() => k.dispose());
  const job = await k.install('notes');
  assert.equal(job.state, 'succeeded', job.error ?? '');
  mkdirSync(join(k.paths.data, 'notes', 'db'), { recursive: true });
  writeFileSync(join(k.paths.data, 'notes', 'db', 'notes.sqlite'), 'data');
  mkdirSync(join(k.paths.data, 'other'), { recursive: true });
  writeFileSync(join(k.paths.data, 'other', 'keep.txt'), 'not mine');
  k.engine.addVolume('other_cache', { [COMPOSE_PROJECT_LABEL]: 'other' });
  return k;
}

const volumes = async (k: StacksKit) => [...(await k.engine.listVolumes({ project: 'notes' })), ...(await k.engine.listVolumes({ project: 'other' }))].sort();

test('remove without data: containers, network and folder go; the data folder and the volume stay', async (t) => {
  const k = await notes(t);
  const job = await k.done(k.stacks.remove(OPERATOR, 'notes', { removeData: false }));
  assert.equal(job.state, 'succeeded', job.error ?? '');
  assert.equal(k.io.kind(join(k.paths.library, 'notes')), null, 'the folder is gone');
  assert.deepEqual(await k.engine.listContainers({ project: 'notes' }), []);
  assert.equal(
    (await k.engine.listNetworks()).some((n) => n.name === 'notes_default'),
    false,
  );
  assert.ok(existsSync(join(k.paths.data, 'notes', 'db', 'notes.sqlite')), 'the data stays');
  assert.deepEqual(await volumes(k), ['notes_cache', 'other_cache']);
  assert.deepEqual(
    k.events.filter((e) => e.type === 'stack.deleted').map((e) => e.detail),
    [{ remove_data: false, adopted: false }],
  );
  assert.equal((await k.install('notes')).state, 'succeeded', 'the name is free again');
});

test('remove with data: exactly what the data listing names goes, nothing of another app', async (t) => {
  const k = await notes(t);
  const listed = await k.stacks.data(OPERATOR, 'notes');
  assert.deepEqual(listed, { folders: [join(k.paths.data, 'notes')], volumes: ['notes_cache'] });

  const job = await k.done(k.stacks.remove(OPERATOR, 'notes', { removeData: true }));
  assert.equal(job.state, 'succeeded', job.error ?? '');
  assert.equal(existsSync(join(k.paths.data, 'notes')), false, "the app's data folder is gone");
  assert.deepEqual(await volumes(k), ['other_cache'], "the app's volume is gone, the other app's stays");
  assert.ok(existsSync(join(k.paths.data, 'other', 'keep.txt')), "another app's data stays");
  const log = k.jobs.readLog(job.id, 0).lines;
  assert.ok(log.includes('removed the volume notes_cache') && log.includes(`removed ${join(k.paths.data, 'notes')}`), log.join('\n'));
});

test('compose failing to take the app down fails the removal with the folder and data still there', async (t) => {
  const k = await notes(t);
  const before = k.tree();
  k.compose.failOn('down', { nth: 1 });
  const job = await k.done(k.stacks.remove(OPERATOR, 'notes', { removeData: true }));
  assert.equal(job.state, 'failed');
  assert.deepEqual(k.tree(), before, 'the folder is whole: the removal can be tried again');
  assert.ok(existsSync(join(k.paths.data, 'notes', 'db', 'notes.sqlite')));
  assert.deepEqual(await volumes(k), ['notes_cache', 'other_cache']);
});

test('files changed outside Kade do not keep an app: its containers are removed through the engine', async (t) => {
  const k = await notes(t);
  const compose = join(k.paths.library, 'notes', 'docker-compose.yml');
  k.write(compose, `${k.read(compose)}# edited by hand\n`);
  assert.equal(k.stacks.filesVerdict(ADMIN, 'notes').refusal?.code, 'stack_files_refused');
  const job = await k.done(k.stacks.remove(OPERATOR, 'notes', { removeData: false }));
  assert.equal(job.state, 'succeeded', job.error ?? '');
  assert.deepEqual(await k.engine.listContainers({ project: 'notes' }), []);
  assert.equal(k.io.kind(join(k.paths.library, 'notes')), null);
  assert.ok(k.jobs.readLog(job.id, 0).lines.includes("removing the app's containers through the engine instead"));
});

test("an adopted app: only Kade's reference goes, its folder and running containers stay; removing its data is refused", async (t) => {
  const k = await createStacksKit();
  t.after(() => k.dispose());
  const dir = join(k.paths.base, 'own', 'site');
  const file = join(dir, 'docker-compose.yml');
  k.write(file, `services:\n  app:\n    image: ${IMAGES.web}\n    command: ["sleep", "infinity"]\n`);
  await k.compose.up({ name: 'site', dir, file });
  await k.stacks.adopt(OPERATOR, { path: dir });
  const containers = await k.running('site');

  assert.throws(() => k.stacks.remove(OPERATOR, 'site', { removeData: true }), { code: 'validation', fields: ['remove_data'] });
  assert.deepEqual(await k.stacks.data(OPERATOR, 'site'), { folders: [], volumes: [] });
  const job = await k.done(k.stacks.remove(OPERATOR, 'site', { removeData: false }));
  assert.equal(job.state, 'succeeded', job.error ?? '');
  assert.equal(k.io.kind(join(k.paths.library, 'site')), null, 'the link is gone');
  assert.equal(k.io.kind(join(k.paths.state, 'adopted', 'site.json')), null, "Kade's metadata of it is gone");
  assert.ok(k.read(file), "the user's compose file stays");
  assert.deepEqual(await k.running('site'), containers, 'its containers still run');
});
