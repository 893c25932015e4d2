import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import { AppError } from '../../src/server/core/errors.ts';
import { createDockerEngine } from '../../src/server/engine/docker-engine.ts';
import { createHostHelper } from '../../src/server/engine/host-helper.ts';
import { requireEngine, TEST_LABEL } from '../helpers/engine.ts';

// The engine restart's helper on the real engine (Engine.runContainer): in the host's PID namespace it reads the
// host's PID 1, unprivileged; nothing is left behind; a missing image says how to get it.
const engine = createDockerEngine({ socketPath: '/var/run/docker.sock' });
const labels = { [TEST_LABEL]: '1' };
const left = async () => (await engine.listContainers()).filter((c) => c.labels['kade.probe'] === 'engine-restart' && c.labels[TEST_LABEL] === '1');

before(() => requireEngine());

test("the helper reads the host's PID 1 from the host's PID namespace and leaves no container", { timeout: 60_000 }, async () => {
  const helper = createHostHelper(engine, 'kade-test/busybox:1', labels);
  const out = await helper({ cmd: ['cat', '/proc/1/comm'], privileged: false });
  assert.deepEqual(out, { exitCode: 0, stdout: readFileSync('/proc/1/comm', 'utf8'), stderr: '' });
  const failing = await helper({ cmd: ['sh', '-c', 'echo nope >&2; exit 7'], privileged: false });
  assert.deepEqual(failing, { exitCode: 7, stdout: '', stderr: 'nope\n' });
  assert.deepEqual(await left(), []);
});

test('a helper image the engine lacks is a conflict naming it; one that hangs is cut off at its time-out and removed', { timeout: 60_000 }, async () => {
  const missing = await createHostHelper(engine, 'kade-test/no-such-helper:0', labels)({ cmd: ['true'], privileged: false }).catch((e: unknown) => e);
  assert.ok(missing instanceof AppError);
  assert.deepEqual([missing.code, missing.params], ['conflict', { reason: 'image_missing', image: 'kade-test/no-such-helper:0' }]);
  const hung = await createHostHelper(
    engine,
    'kade-test/busybox:1',
    labels,
  )({ cmd: ['sleep', '60'], privileged: false, timeoutMs: 1000 }).catch((e: unknown) => e);
  assert.ok(hung instanceof AppError);
  assert.equal(hung.message, 'the helper container failed: the helper container did not finish within 1 s');
  assert.deepEqual(await left(), []);
});
