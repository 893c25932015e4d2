import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AppError } from '../../core/errors.ts';
import { diskIO } from './disk-io.ts';
import { memoryIO } from './memory-io.ts';
import { emptyMeta } from './stack-files.ts';
import { stackStoreContract } from './stack-store.contract.ts';
import { stackStoreOn } from './stack-store.ts';

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

stackStoreContract('disk', () => {
  const root = mkdtempSync(join(tmpdir(), 'kade-store-'));
  roots.push(root);
  return { io: diskIO(), root };
});

let n = 0;
stackStoreContract('memory', () => {
  const io = memoryIO();
  const root = `/kade-${++n}`;
  io.mkdir(root, 0o755);
  return { io, root };
});

test('memory: a write on a full disk changes no file and no seal; the snapshot taken before it stays', () => {
  const io = memoryIO();
  io.mkdir('/k/stacks', 0o755);
  let seals = 0;
  const store = stackStoreOn(io, { libraryDir: '/k/stacks', stateDir: '/k/state', sealer: { seal: () => void seals++ } });
  const meta = `${JSON.stringify(emptyMeta(''))}\n`;
  const loc = store.create('app', { compose: 'services: {}\n', env: 'A=1\n', meta }, { user: 'ada', role: 'admin', ip: '' });
  assert.equal(seals, 1);
  const before = store.snapshots.list('app').length;
  io.faults.full = true;
  assert.throws(
    () => store.write(loc, { compose: 'services: {x: {}}\n', env: 'A=2\n' }, { actor: { user: 'ada', role: 'admin', ip: '' } }),
    (err: unknown) => err instanceof AppError && err.code === 'disk_full',
  );
  io.faults.full = false;
  assert.equal(store.read(loc, 'compose'), 'services: {}\n');
  assert.equal(store.envText(loc), 'A=1\n');
  assert.equal(seals, 1, 'nothing written, nothing sealed');
  assert.equal(store.snapshots.list('app').length, before);
});
