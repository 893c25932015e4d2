import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type GitServer, startGitServer } from '../../../test/helpers/git-server.ts';
import { run } from '../core/exec.ts';
import { createGitCli } from './git-cli.ts';

// What only the CLI adapter does, against real git over smart HTTP on loopback; the cases any Git passes are in
// git.contract.ts (git-contract.int.test.ts runs them here).
const git = createGitCli({ timeoutMs: 30_000 });
let server: GitServer;
let work: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'kade-gitcli-'));
  server = await startGitServer();
  await server.addRepo('apps', 'test/fixtures/repos/basic', { branch: 'main' });
});
after(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

test('submodules are never fetched', async () => {
  const tree = mkdtempSync(join(tmpdir(), 'kade-tree-'));
  cpSync('test/fixtures/repos/basic', tree, { recursive: true });
  const sub = join(tree, 'apps', 'sub');
  cpSync('test/fixtures/repos/basic/apps/hello', sub, { recursive: true });
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t.invalid' };
  for (const args of [
    ['init', '-q'],
    ['add', '.'],
    ['commit', '-qm', 'sub'],
  ])
    assert.equal((await run('git', args, { cwd: sub, env })).code, 0);
  writeFileSync(join(tree, '.gitmodules'), `[submodule "apps/sub"]\n\tpath = apps/sub\n\turl = ${server.url('apps')}\n`);
  await server.addRepo('withsub', tree, { branch: 'main' });
  const dir = join(work, 'cache-sub');
  await git.sync({ url: server.url('withsub'), branch: 'main' }, dir);
  assert.ok(existsSync(join(dir, '.gitmodules')), 'the commit has a submodule');
  assert.equal(existsSync(join(dir, 'apps', 'sub', 'template.json')), false, 'its content was not fetched');
  rmSync(tree, { recursive: true, force: true });
});

test('a repo on a plain static web server (dumb HTTP) is fetched in full when a shallow fetch cannot work', async () => {
  const dumb = await startGitServer({ dumb: true });
  try {
    await dumb.addRepo('apps', 'test/fixtures/repos/basic', { branch: 'main' });
    const tree = mkdtempSync(join(tmpdir(), 'kade-tree-'));
    cpSync('test/fixtures/repos/basic', tree, { recursive: true });
    writeFileSync(join(tree, 'VERSION'), 'v0.3.00\n');
    const sha = await dumb.commit('apps', tree, 'second commit');
    rmSync(tree, { recursive: true, force: true });
    const dir = join(work, 'cache-dumb');
    const got = await git.sync({ url: dumb.url('apps'), branch: 'main' }, dir);
    assert.equal(got.sha, sha);
    assert.equal(readFileSync(join(dir, 'VERSION'), 'utf8'), 'v0.3.00\n');
    assert.ok(existsSync(join(dir, 'apps/hello/template.json')));
    // And it follows a later commit on the same dumb server.
    const again = await dumb.commit('apps', 'test/fixtures/repos/basic', 'third commit');
    assert.equal((await git.sync({ url: dumb.url('apps'), branch: 'main' }, dir)).sha, again);
  } finally {
    await dumb.close();
  }
});

/** A git server that records the headers of every request it gets (the redirect target). */
async function recordingServer() {
  const seen: string[] = [];
  const server = await startGitServer({
    intercept: (req) => {
      seen.push(JSON.stringify(req.headers));
      return false;
    },
  });
  await server.addRepo('apps', 'test/fixtures/repos/basic', { branch: 'main' });
  return { server, seen };
}

for (const when of ['before', 'after'] as const) {
  test(`the token never reaches another origin that the repo's server redirects to (${when} asking for it)`, async () => {
    const TOKEN = `tok-Redirect-${when}-789`;
    const target = await recordingServer();
    const origin = await startGitServer({
      token: TOKEN,
      intercept: (req, res, authorized) => {
        // "before": every request is sent away at once; "after": only once it carries the token.
        if (when === 'after' && !authorized) return false;
        res.writeHead(302, { Location: `${target.server.url('apps')}${(req.url ?? '').replace(/^\/apps\.git/, '')}` }).end();
        return true;
      },
    });
    try {
      await origin.addRepo('apps', 'test/fixtures/repos/basic', { branch: 'main' });
      await git.sync({ url: origin.url('apps'), branch: 'main', token: TOKEN }, join(work, `cache-redirect-${when}`)).catch(() => undefined);
      const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
      const all = target.seen.join('\n');
      assert.ok(!all.includes(TOKEN) && !all.includes(basic), `the redirect target received the token: ${all}`);
      assert.ok(!/authorization/i.test(all), 'no credentials at all reached the other origin');
      if (when === 'before') assert.ok(target.seen.length > 0, 'the redirect was followed (without the token)');
    } finally {
      await origin.close();
      await target.server.close();
    }
  });
}
