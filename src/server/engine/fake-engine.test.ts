import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../core/errors.ts';
import { engineContract } from './engine.contract.ts';
import { createFakeEngine } from './fake-engine.ts';

const IMAGE = 'kade-test/busybox:1';

engineContract('fake engine', () => {
  const engine = createFakeEngine();
  engine.addImage(IMAGE);
  const unreachable = createFakeEngine();
  unreachable.down(true);
  return { engine, unreachable, image: IMAGE };
});

test('failOn fails the nth call of a method from now, before it acts; the calls before and after go through', async () => {
  const engine = createFakeEngine();
  engine.addImage(IMAGE);
  const id = await engine.createContainer({ image: IMAGE, cmd: ['sleep', '300'] });
  engine.failOn('startContainer', { nth: 2, error: new AppError('engine_unreachable', 'cut') });
  await engine.startContainer(id);
  await engine.stopContainer(id);
  await assert.rejects(engine.startContainer(id), /cut/);
  assert.equal((await engine.listContainers())[0]?.state, 'exited', 'the failed call did not act');
  await engine.startContainer(id);
  assert.equal((await engine.listContainers())[0]?.state, 'running');
  assert.deepEqual(
    engine.calls.map((c) => c.method),
    ['createContainer', 'startContainer', 'stopContainer', 'startContainer', 'listContainers', 'startContainer', 'listContainers'],
  );
});

test("failOn('*') counts every call; without an error it is the unreachable engine's", async () => {
  const engine = createFakeEngine();
  engine.failOn('*', { nth: 3, times: 1 });
  await engine.ping();
  await engine.listNetworks();
  const err = await engine.listContainers().catch((e: unknown) => e);
  assert.ok(err instanceof AppError && err.code === 'engine_unreachable' && /ECONNREFUSED/.test(err.message));
  await engine.ping();
});

test('hold answers with what the engine had when asked, once released', async () => {
  const engine = createFakeEngine();
  engine.addImage(IMAGE);
  const release = engine.hold('listContainers');
  const early = engine.listContainers();
  await engine.createContainer({ image: IMAGE, cmd: ['true'] });
  release();
  assert.deepEqual(await early, []);
  assert.equal((await engine.listContainers()).length, 1);
});

test('down ends the open event streams; exit makes a running container die with its code', async () => {
  const engine = createFakeEngine();
  engine.addImage(IMAGE);
  const id = await engine.createContainer({ image: IMAGE, cmd: ['sleep', '300'], labels: { 'com.docker.compose.project': 'p' } });
  await engine.startContainer(id);
  const stream = await engine.containerEvents({ actions: ['die'] });
  engine.exit(id, 137);
  const first = await stream.events[Symbol.asyncIterator]().next();
  assert.equal(first.value?.exitCode, 137);
  engine.down(true);
  assert.equal((await stream.events[Symbol.asyncIterator]().next()).done, true);
  await assert.rejects(engine.containerEvents({ actions: ['die'] }), /not reachable/);
});

test('a program of the test answers inside the containers, with the env and stdin it got', async () => {
  const engine = createFakeEngine();
  engine.addImage(IMAGE);
  engine.program('psql', (r) => ({ exitCode: 3, stderr: `password ${r.env.PGPASSWORD} stdin ${r.stdin}` }));
  const id = await engine.createContainer({ image: IMAGE, cmd: ['sleep', '300'] });
  await engine.startContainer(id);
  assert.deepEqual(await engine.exec(id, { cmd: ['psql'], env: ['PGPASSWORD=pw'], stdin: 'ALTER' }), {
    exitCode: 3,
    stdout: '',
    stderr: 'password pw stdin ALTER',
  });
});
