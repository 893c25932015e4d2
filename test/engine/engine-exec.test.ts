import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createDockerEngine } from '../../src/server/engine/docker-engine.ts';
import { EXEC_OUTPUT_LIMIT } from '../../src/server/engine/engine.ts';
import { requireEngine, TEST_LABEL } from '../helpers/engine.ts';
import { rejectsWith } from './contract-helpers.ts';

const engine = createDockerEngine({ socketPath: '/var/run/docker.sock' });
const run = randomBytes(3).toString('hex');
const T = { timeout: 60_000 };
const names: string[] = [];

async function start(name: string): Promise<{ id: string; name: string }> {
  const full = `kadetest-exec-${name}-${run}`;
  names.push(full);
  const c = await engine.docker.createContainer({
    name: full,
    Image: 'kade-test/busybox:1',
    Cmd: ['sleep', '300'],
    Env: ['FROM_IMAGE_CONFIG=container'],
    Labels: { [TEST_LABEL]: '1' },
    // `sleep` as PID 1 ignores SIGTERM; the init makes stop take milliseconds.
    HostConfig: { Init: true },
  });
  await c.start();
  return { id: c.id, name: full };
}

let box = { id: '', name: '' };

before(async () => {
  await requireEngine();
  box = await start('box');
});

after(async () => {
  // Only this file's containers: other test files may be running against the same engine.
  for (const name of names)
    await engine.docker
      .getContainer(name)
      .remove({ force: true })
      .catch(() => {});
});

test('exec returns the output of a command', T, async () => {
  const r = await engine.exec(box.id, { cmd: ['echo', 'hello from inside'] });
  assert.deepEqual(r, { exitCode: 0, stdout: 'hello from inside\n', stderr: '' });
});

test('exec reports the exit code and keeps stdout and stderr apart', T, async () => {
  const r = await engine.exec(box.id, { cmd: ['sh', '-c', 'echo out; echo err >&2; exit 3'] });
  assert.equal(r.exitCode, 3);
  assert.equal(r.stdout, 'out\n');
  assert.equal(r.stderr, 'err\n');
});

test('exec feeds stdin to the command and closes it', T, async () => {
  const text = `line one\nquote ' and "double"\n${'x'.repeat(100_000)}\nend`;
  const r = await engine.exec(box.id, { cmd: ['cat'], stdin: text });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, text);
});

test('exec passes env next to the container environment, and runs as the given user', T, async () => {
  const r = await engine.exec(box.id, { cmd: ['sh', '-c', 'echo "$SECRET_VALUE|$FROM_IMAGE_CONFIG|$(id -u)"'], env: ['SECRET_VALUE=a b$c'], user: 'nobody' });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, 'a b$c|container|65534\n');
});

test('exec caps the output it keeps', T, async () => {
  const r = await engine.exec(box.id, { cmd: ['sh', '-c', 'head -c 400000 /dev/zero | tr "\\0" a'] });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout.length, EXEC_OUTPUT_LIMIT);
});

test('exec gives up after its timeout', T, async () => {
  const began = Date.now();
  const err = await rejectsWith(engine.exec(box.id, { cmd: ['sleep', '30'], timeoutMs: 500 }), 'engine_unreachable');
  assert.ok(Date.now() - began < 10_000);
  assert.match(err.message, /did not finish within 500 ms/);
});

test('exec in a stopped or paused container is a conflict that names the container', T, async () => {
  const other = await start('stopped');
  await engine.docker.getContainer(other.id).pause();
  const paused = await rejectsWith(engine.exec(other.id, { cmd: ['true'] }), 'conflict');
  assert.match(paused.message, new RegExp(`'${other.name}' is paused`));
  await engine.docker.getContainer(other.id).unpause();
  await engine.stopContainer(other.id);
  const stopped = await rejectsWith(engine.exec(other.id, { cmd: ['true'] }), 'conflict');
  assert.match(stopped.message, new RegExp(`'${other.name}' is not running`));
  assert.equal(stopped.params.name, other.name);
});

test('exec in an unknown container is not_found', T, async () => {
  await rejectsWith(engine.exec(`kadetest-exec-missing-${run}`, { cmd: ['true'] }), 'not_found');
});
