import assert from 'node:assert/strict';
import { chownSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEngineCheck } from './engine-check.ts';

// GET /api/engine/check names the engine socket's group (shared/API.md): the id read from the socket itself, its
// name in the group file, and whether Kade's process has it.
const engine = { ping: async () => ({ version: '27.3.1', apiVersion: '1.47' }) };
const compose = { variant: async () => 'v2' as const };

test("the check names the socket's group and whether Kade has it; none for an engine over tcp", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-engine-check-'));
  const groupFile = join(dir, 'group');
  writeFileSync(groupFile, `kadetest-docker:x:4242:svc\nmine:x:${process.getegid?.() ?? 0}:\n`);
  const socket = join(dir, 'docker.sock');
  writeFileSync(socket, '');
  const check = () => createEngineCheck({ engine: engine as never, compose, socketPath: socket, groupFile }).check();
  const own = await check();
  assert.deepEqual(own.socket_group, { socket, gid: process.getegid?.() ?? 0, name: 'mine', member: true, error: null });
  assert.equal(own.reachable, true);
  if (process.getuid?.() === 0) {
    chownSync(socket, 0, 4242);
    assert.deepEqual((await check()).socket_group, { socket, gid: 4242, name: 'kadetest-docker', member: false, error: null });
  }
  const gone = await createEngineCheck({ engine: engine as never, compose, socketPath: join(dir, 'none.sock'), groupFile }).check();
  assert.equal(gone.socket_group?.gid, null);
  assert.match(gone.socket_group?.error ?? '', /ENOENT/);
  assert.equal((await createEngineCheck({ engine: engine as never, compose, socketPath: null }).check()).socket_group, null);
});
