import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../core/errors.ts';
import type { ContainerSpec } from './engine.ts';
import { createFakeEngine } from './fake-engine.ts';
import { createHostHelper } from './host-helper.ts';

const IMAGE = 'busybox:1.37';

test("the helper runs in the host's PID namespace without network, privileged only when asked, and answers the output", async () => {
  const engine = createFakeEngine();
  engine.addImage(IMAGE);
  engine.files.set('/proc/1/comm', 'systemd\n');
  const helper = createHostHelper(engine, IMAGE);
  assert.deepEqual(await helper({ cmd: ['cat', '/proc/1/comm'], privileged: false }), { exitCode: 0, stdout: 'systemd\n', stderr: '' });
  await helper({ cmd: ['true'], privileged: true });
  const specs = engine.calls.filter((c) => c.method === 'runContainer').map((c) => c.args[0] as ContainerSpec);
  assert.deepEqual(
    specs.map((s) => [s.hostPid, s.network, s.powers, s.readOnlyRoot]),
    [
      [true, 'none', 'none', true],
      [true, 'none', 'privileged', true],
    ],
  );
  assert.deepEqual(await engine.listContainers(), [], 'no helper container is left');
});

test('a missing helper image is a conflict that says how to get it; a helper that hangs fails after its time-out', async () => {
  const engine = createFakeEngine();
  const missing = await createHostHelper(engine, IMAGE)({ cmd: ['true'], privileged: false }).catch((e: unknown) => e);
  assert.ok(missing instanceof AppError);
  assert.deepEqual([missing.code, missing.params], ['conflict', { reason: 'image_missing', image: IMAGE }]);
  assert.match(missing.message, /docker pull busybox:1\.37/);
  engine.addImage(IMAGE);
  const hung = await createHostHelper(engine, IMAGE)({ cmd: ['sleep', '60'], privileged: false, timeoutMs: 500 }).catch((e: unknown) => e);
  assert.ok(hung instanceof AppError);
  assert.deepEqual([hung.code, hung.message], ['engine_unreachable', 'the helper container failed: the helper container did not finish within 0.5 s']);
});
