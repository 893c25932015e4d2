import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type GitServer, startGitServer } from '../../../test/helpers/git-server.ts';
import { createGitCli } from './git-cli.ts';

// The git adapter's contract, against real git over smart HTTP on loopback.
const git = createGitCli({ timeoutMs: 30_000 });
let server: GitServer;
let locked: GitServer;
let work: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'kade-gitcli-'));
  server = await startGitServer();
  locked = await startGitServer({ token: 'tok-Secret-123' });
  await server.addRepo('apps', 'test/fixtures/repos/basic', { branch: 'main' });
  await locked.addRepo('apps', 'test/fixtures/repos/basic', { branch: 'main' });
});
after(async () => {
  await server.close();
  await locked.close();
  rmSync(work, { recursive: true, force: true });
});

test('sync clones the branch head, then follows new commits with a hard reset', async () => {
  const dir = join(work, 'cache-a');
  const first = await git.sync({ url: server.url('apps'), branch: 'main' }, dir);
  assert.match(first.sha, /^[0-9a-f]{40}$/);
  assert.ok(existsSync(join(dir, 'apps/hello/template.json')));
  writeFileSync(join(dir, 'apps/hello/template.json'), 'local edit');

  const tree = mkdtempSync(join(tmpdir(), 'kade-tree-'));
  cpSync('test/fixtures/repos/basic', tree, { recursive: true });
  writeFileSync(join(tree, 'VERSION'), 'v0.2.00\n');
  const sha = await server.commit('apps', tree, 'bump');
  const second = await git.sync({ url: server.url('apps'), branch: 'main' }, dir);
  assert.equal(second.sha, sha);
  assert.equal(readFileSync(join(dir, 'VERSION'), 'utf8'), 'v0.2.00\n');
  assert.notEqual(readFileSync(join(dir, 'apps/hello/template.json'), 'utf8'), 'local edit', 'local changes are reset');

  const pinned = await git.sync({ url: server.url('apps'), branch: 'main', pinnedCommit: first.sha }, join(work, 'cache-pinned'));
  assert.equal(pinned.sha, first.sha);
  rmSync(tree, { recursive: true, force: true });
});

test('links in the repo are written as plain files, so none can point outside the cache', async () => {
  const tree = mkdtempSync(join(tmpdir(), 'kade-tree-'));
  cpSync('test/fixtures/repos/basic', tree, { recursive: true });
  symlinkSync('/etc', join(tree, 'apps/evil'));
  symlinkSync('/etc/passwd', join(tree, 'apps/hello/passwd'));
  await server.addRepo('links', tree, { branch: 'main' });
  const dir = join(work, 'cache-links');
  await git.sync({ url: server.url('links'), branch: 'main' }, dir);
  assert.equal(lstatSync(join(dir, 'apps/evil')).isSymbolicLink(), false);
  assert.equal(lstatSync(join(dir, 'apps/hello/passwd')).isFile(), true);
  assert.equal(readFileSync(join(dir, 'apps/hello/passwd'), 'utf8'), '/etc/passwd');
  rmSync(tree, { recursive: true, force: true });
});

test('the token reaches git through the environment and never shows in an error', async () => {
  const ok = await git.sync({ url: locked.url('apps'), branch: 'main', token: 'tok-Secret-123' }, join(work, 'cache-tok'));
  assert.match(ok.sha, /^[0-9a-f]{40}$/);
  await assert.rejects(
    git.sync({ url: locked.url('apps'), branch: 'main', token: 'tok-Wrong-456' }, join(work, 'cache-bad')),
    (e: Error & { code: string }) => {
      assert.equal(e.code, 'git_failed');
      assert.ok(!e.message.includes('tok-Wrong-456'));
      return true;
    },
  );
  await assert.rejects(git.sync({ url: locked.url('apps'), branch: 'main' }, join(work, 'cache-none')), { code: 'git_failed' });
});

test('refused URLs and branch names never reach git', async () => {
  const before = server.requests();
  for (const url of ['ext::sh -c touch% /tmp/kade-pwned', 'file:///etc', '/tmp', '--upload-pack=touch /tmp/kade-pwned']) {
    await assert.rejects(git.sync({ url, branch: 'main' }, join(work, 'cache-x')), { code: 'invalid_git_url' });
  }
  for (const branch of ['--orphan', 'a..b', '-x']) {
    await assert.rejects(git.sync({ url: server.url('apps'), branch }, join(work, 'cache-y')), { code: 'validation' });
  }
  assert.equal(server.requests(), before);
  assert.equal(existsSync('/tmp/kade-pwned'), false);
  assert.equal(existsSync(join(work, 'cache-x')), false);
});

test('an unknown branch fails with git_failed', async () => {
  await assert.rejects(git.sync({ url: server.url('apps'), branch: 'nope' }, join(work, 'cache-nope')), { code: 'git_failed' });
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
    execFileSync('git', args, { cwd: sub, env });
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
