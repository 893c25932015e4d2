import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ADMIN, createStacksKit, IMAGES, OPERATOR, SHARED, type StacksKit } from '../../../../test/helpers/stacks-kit.ts';

// Adopt over the fakes (test/helpers/stacks-kit.ts): a compose app running outside Kade comes under management
// without a byte of its folder changing; LIBRARY_DIR/<name> is a link, the metadata lives in Kade's own state.

const COMPOSE = `services:\n  app:\n    image: ${IMAGES.web}\n    command: ["sleep", "infinity"]\n    volumes:\n      - ./data:/data\n`;

/** A kit with the user's own app in BASE_DIR/own/site, started by hand with compose (project `site`). */
async function withOwnApp(t: { after(fn: () => void): void }) {
  const k = await createStacksKit();
  t.after(() => k.dispose());
  const dir = join(k.paths.base, 'own', 'site');
  k.write(join(dir, 'docker-compose.yml'), COMPOSE);
  k.write(join(dir, '.env'), 'GREETING=hello\n', 0o640);
  await k.compose.up({ name: 'site', dir, file: join(dir, 'docker-compose.yml') });
  return { k, dir };
}

/** The user's folder as it is: every file with its bytes and mode. */
function own(k: StacksKit, dir: string) {
  return Object.fromEntries(k.io.list(dir).map((e) => [e.name, { text: k.read(join(dir, e.name)), mode: k.io.stat(join(dir, e.name))?.mode }]));
}

test("adopting links the app into LIBRARY_DIR and keeps its metadata in Kade's state; the user's folder and containers stay as they are", async (t) => {
  const { k, dir } = await withOwnApp(t);
  const before = own(k, dir);
  const containers = await k.running('site');

  assert.equal(await k.stacks.adopt(OPERATOR, { path: dir }), 'site', 'named after the project its containers carry');
  assert.deepEqual(own(k, dir), before, "not a byte of the user's folder changed");
  assert.equal(k.io.readlink(join(k.paths.library, 'site')), dir);
  const meta = JSON.parse(k.read(join(k.paths.state, 'adopted', 'site.json')) ?? '');
  assert.deepEqual(meta.adopted, { path: dir, project: 'site' });
  assert.deepEqual(await k.running('site'), containers, 'the running containers are untouched');
  assert.deepEqual(
    k.events.filter((e) => e.type === 'stack.adopted').map((e) => [e.target, e.detail]),
    [['site', { path: dir, project: 'site' }]],
  );

  // Sealed as the adopter's: compose runs the files as they are now, under the project the containers carry.
  assert.deepEqual(k.stacks.filesVerdict(ADMIN, 'site'), { ok: true, refusal: null });
  const restart = await k.done(k.stacks.operate(OPERATOR, 'site', 'restart'));
  assert.equal(restart.state, 'succeeded', restart.error ?? '');
  assert.deepEqual(Object.keys(await k.running('site')), ['app']);
});

test('an adopted app under a name of its own keeps the project of its containers', async (t) => {
  const { k, dir } = await withOwnApp(t);
  assert.equal(await k.stacks.adopt(OPERATOR, { path: dir, name: 'my-site' }), 'my-site');
  assert.equal(k.stacks.project('my-site').name, 'site');
  const stop = await k.done(k.stacks.operate(OPERATOR, 'my-site', 'stop'));
  assert.equal(stop.state, 'succeeded', stop.error ?? '');
  assert.deepEqual(await k.running('site'), {}, "the adopted app's containers stopped");
});

test('a folder outside BASE_DIR, one without a compose file and one adopted already are refused with nothing written', async (t) => {
  const { k, dir } = await withOwnApp(t);
  k.write(join(k.paths.base, 'empty', 'README'), 'nothing to run\n');
  const before = k.tree();
  await assert.rejects(k.stacks.adopt(OPERATOR, { path: '/elsewhere/site' }), { code: 'path_unreachable' });
  await assert.rejects(k.stacks.adopt(OPERATOR, { path: join(k.paths.base, 'empty') }), { code: 'validation', fields: ['path'] });
  assert.deepEqual(k.tree(), before);

  await k.stacks.adopt(OPERATOR, { path: dir });
  await assert.rejects(k.stacks.adopt(OPERATOR, { path: dir, name: 'again' }), { code: 'conflict' });
  assert.equal(k.io.kind(join(k.paths.library, 'again')), null);
});

test("an adopted app joins the shared network through an override in Kade's state; its own folder is untouched", async (t) => {
  const { k, dir } = await withOwnApp(t);
  await k.stacks.adopt(OPERATOR, { path: dir });
  const before = own(k, dir);
  const job = await k.done(k.stacks.connect(OPERATOR, 'site', { network: SHARED }));
  assert.equal(job.state, 'succeeded', k.jobs.readLog(job.id, 0).lines.join('\n'));
  assert.deepEqual(own(k, dir), before);
  assert.match(k.read(join(k.paths.state, 'adopted', 'site.networks.yml')) ?? '', /kade-shared:\n\s+external: true/);
  const app = (await k.engine.listContainers({ project: 'site' }))[0];
  assert.deepEqual(Object.keys(app?.networks ?? {}).sort(), ['kade-shared', 'site_default']);
});
