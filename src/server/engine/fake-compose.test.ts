import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../core/errors.ts';
import { composeContract } from './compose.contract.ts';
import { createFakeCompose } from './fake-compose.ts';
import { createFakeEngine } from './fake-engine.ts';

const IMAGE = 'kade-test/busybox:1';

// The Compose contract on the fake, once per endpoint: each endpoint is an engine of its own.
for (const endpoint of [{ socketPath: '/var/run/docker.sock' }, { host: '10.0.0.2', port: 2375 }]) {
  composeContract(`fake compose at ${JSON.stringify(endpoint)}`, () => {
    const engine = createFakeEngine();
    engine.addImage(IMAGE);
    const gone = createFakeEngine();
    gone.down(true);
    const far = { socketPath: '/nonexistent/docker.sock' };
    return {
      compose: createFakeCompose({ endpoint, engine }),
      endpoint,
      engine,
      image: IMAGE,
      unreachable: { compose: createFakeCompose({ endpoint: far, engine: gone }), endpoint: far },
    };
  });
}

const YAML = `services:\n  web:\n    image: ${IMAGE}\n    command: [sleep, "300"]\n`;
const project = { name: 'kadetest-switch', dir: '/stacks/switch', file: '/stacks/switch/docker-compose.yml' };

/** A fake compose reading an in-memory folder (as over the stack store's memory IO). */
function fake(files: Record<string, string> = { [project.file]: YAML }) {
  const engine = createFakeEngine();
  engine.addImage(IMAGE);
  const compose = createFakeCompose({ endpoint: { socketPath: '/var/run/docker.sock' }, engine, variant: 'v1', read: (p) => files[p] ?? null });
  return { engine, compose, files };
}

test('failOn fails the nth run of an operation before it acts; the runs before and after go through', async () => {
  const { engine, compose } = fake();
  compose.failOn('up', { nth: 2, error: new AppError('compose_failed', 'cut') });
  await compose.up(project);
  await compose.down(project);
  await assert.rejects(compose.up(project), /cut/);
  assert.deepEqual(await engine.listContainers({ project: project.name }), [], 'the failed run did not act');
  await compose.up(project);
  assert.deepEqual(
    compose.calls.map((c) => c.op),
    ['up', 'down', 'up', 'up'],
  );
  assert.equal((await engine.listContainers({ project: project.name }))[0]?.name, 'kadetest-switch_web_1', 'v1 names its containers with _');
});

test('without an error a failed run is compose_failed naming the project; hold keeps a run waiting until released', async () => {
  const { engine, compose } = fake();
  compose.failOn('validate');
  const err = await compose.validate(project).catch((e: unknown) => e);
  assert.ok(err instanceof AppError && err.code === 'compose_failed' && err.params.stack === project.name, String(err));
  const release = compose.hold('up');
  let done = false;
  const up = compose.up(project).then(() => (done = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(done, false);
  assert.deepEqual(await engine.listContainers({ project: project.name }), []);
  release();
  await up;
  assert.equal((await engine.listContainers({ project: project.name }))[0]?.state, 'running');
});

test('files are read through the reader it was given; a pull carries its extra environment into the record', async () => {
  const { compose, files } = fake();
  files[project.file] = 'services:\n  web:\n    image: [\n';
  await assert.rejects(compose.validate(project), { code: 'compose_invalid' });
  delete files[project.file];
  await assert.rejects(compose.validate(project), /No such file/);
  await compose.pull({ ...project, file: '/nowhere.yml' }, { env: { DOCKER_CONFIG: '/tmp/cfg' } }).catch(() => undefined);
  assert.deepEqual(compose.calls.at(-1)?.env, { DOCKER_CONFIG: '/tmp/cfg' });
});

test('without a compose CLI, variant() and every run fail as the adapter’s do; validate says so as a refusal of the file', async () => {
  const compose = createFakeCompose({ endpoint: { socketPath: '/var/run/docker.sock' }, engine: createFakeEngine(), variant: null });
  await assert.rejects(compose.variant(), { code: 'engine_unreachable', message: /neither `docker compose` nor `docker-compose`/ });
  await assert.rejects(compose.up(project), { code: 'engine_unreachable' });
  await assert.rejects(compose.validate(project), { code: 'compose_invalid', message: /nor `docker-compose` is installed/ });
});
