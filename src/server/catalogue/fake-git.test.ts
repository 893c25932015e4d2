import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AppError } from '../core/errors.ts';
import { createFakeGit } from './fake-git.ts';
import { gitContract } from './git.contract.ts';

gitContract('fake git', () => {
  const git = createFakeGit();
  return { git, limited: (caps) => git.limited(caps), server: async (opts) => git.serve(opts) };
});

const root = mkdtempSync(join(tmpdir(), 'kade-fake-git-'));
after(() => rmSync(root, { recursive: true, force: true }));

async function world() {
  const git = createFakeGit();
  const server = git.serve();
  const tree = mkdtempSync(join(root, 'tree-'));
  writeFileSync(join(tree, 'VERSION'), 'v1\n');
  await server.addRepo('apps', tree);
  return { git, source: { url: server.url('apps'), branch: 'main' } };
}

test('failOn fails the nth sync before it acts; calls records every sync', async () => {
  const { git, source } = await world();
  git.failOn({ nth: 2, error: new AppError('git_failed', 'cut') });
  await git.sync(source, join(root, 'a'));
  await assert.rejects(git.sync(source, join(root, 'b')), /cut/);
  await git.sync(source, join(root, 'c'));
  assert.deepEqual(
    git.calls.map((c) => c.url),
    [source.url, source.url, source.url],
  );
  const stop = git.failOn();
  await assert.rejects(git.sync(source, join(root, 'd')), { code: 'git_failed' });
  stop();
});

test('hold keeps a sync waiting until released', async () => {
  const { git, source } = await world();
  const release = git.hold();
  let done = false;
  const sync = git.sync(source, join(root, 'held')).then(() => (done = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(done, false);
  release();
  await sync;
  assert.equal(done, true);
});
