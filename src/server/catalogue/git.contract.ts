/**
 * The Git port's contract: one set of cases that the fake (fake-git.test.ts, unit tier) and the CLI adapter over real
 * git served by smart HTTP on loopback (git-cli.contract.int.test.ts, test/helpers/git-server.ts) both pass. Where they
 * disagree the real one is right and the fake is fixed. Each case builds its trees in a temp folder of its own.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { contractCase, rejectsWith } from '../../../test/engine/contract-helpers.ts';
import type { GitRemote } from './fake-git.ts';
import type { Git } from './git.ts';

export interface GitTarget {
  git: Git;
  /** A git of the same kind with other caps. */
  limited(caps: { maxBytes?: number; maxFiles?: number }): Git;
  /** A new server; with `token`, it answers only requests that carry it. */
  server(opts?: { token?: string }): Promise<GitRemote>;
}

const TOKEN = 'tok-Contract-123';

/** The folders one case made, and its servers, removed after it. */
function scope(t: GitTarget) {
  const root = mkdtempSync(join(tmpdir(), 'kade-git-contract-'));
  const servers: GitRemote[] = [];
  let n = 0;
  return {
    /** A tree of files (`path: text`; a value `-> target` makes a link). */
    tree(files: Record<string, string>): string {
      const dir = join(root, `tree-${++n}`);
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        if (text.startsWith('-> ')) symlinkSync(text.slice(3), join(dir, path));
        else writeFileSync(join(dir, path), text);
      }
      return dir;
    },
    cache: (name: string) => join(root, 'cache', name),
    async server(opts?: { token?: string }) {
      const s = await t.server(opts);
      servers.push(s);
      return s;
    },
    async cleanup() {
      for (const s of servers) await s.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

type Scope = ReturnType<typeof scope>;
type Each = (title: string, body: (t: GitTarget, s: Scope) => Promise<void>) => void;

const BASIC = { VERSION: 'v0.1.00\n', 'apps/hello/template.json': '{"name":"hello"}\n', 'apps/hello/docker-compose.yml': 'services: {}\n' };
const text = (path: string) => readFileSync(path, 'utf8');

/** Declares the cases for `name`; `target` is asked once per case. */
export function gitContract(name: string, target: () => Promise<GitTarget> | GitTarget): void {
  const each = contractCase(name, target, scope, 60_000);
  syncCases(each);
  refusalCases(each);
}

function syncCases(each: Each): void {
  each('sync clones the branch head, then follows new commits with a hard reset: local edits and stray files go', async (t, s) => {
    const server = await s.server();
    await server.addRepo('apps', s.tree(BASIC));
    const dir = s.cache('a');
    const first = await t.git.sync({ url: server.url('apps'), branch: 'main' }, dir);
    assert.match(first.sha, /^[0-9a-f]{40}$/);
    assert.ok(!Number.isNaN(Date.parse(first.date)), first.date);
    assert.equal(text(join(dir, 'apps/hello/template.json')), '{"name":"hello"}\n');
    assert.match(text(join(dir, '.git', 'config')), new RegExp(`url = ${server.url('apps').replace(/[.]/g, '\\.')}`), 'the origin is in .git/config');
    writeFileSync(join(dir, 'apps/hello/template.json'), 'local edit');
    writeFileSync(join(dir, 'stray.txt'), 'not in the repo');

    const { 'apps/hello/docker-compose.yml': _gone, ...rest } = BASIC;
    const sha = await server.commit('apps', s.tree({ ...rest, VERSION: 'v0.2.00\n' }), 'bump');
    const second = await t.git.sync({ url: server.url('apps'), branch: 'main' }, dir);
    assert.equal(second.sha, sha);
    assert.notEqual(second.sha, first.sha);
    assert.equal(text(join(dir, 'VERSION')), 'v0.2.00\n');
    assert.equal(text(join(dir, 'apps/hello/template.json')), '{"name":"hello"}\n', 'local changes are reset');
    assert.equal(existsSync(join(dir, 'stray.txt')), false, 'stray files are removed');
    assert.equal(existsSync(join(dir, 'apps/hello/docker-compose.yml')), false, 'a file the new commit removed is gone');
    assert.deepEqual(
      readdirSync(dirname(dir)).filter((e) => e.includes('.partial-')),
      [],
    );
  });

  each('a pinned commit is checked out instead of the head', async (t, s) => {
    const server = await s.server();
    await server.addRepo('apps', s.tree(BASIC));
    const first = await t.git.sync({ url: server.url('apps'), branch: 'main' }, s.cache('head'));
    await server.commit('apps', s.tree({ ...BASIC, VERSION: 'v0.3.00\n' }));
    const pinned = await t.git.sync({ url: server.url('apps'), branch: 'main', pinnedCommit: first.sha }, s.cache('pinned'));
    assert.equal(pinned.sha, first.sha);
    assert.equal(text(join(s.cache('pinned'), 'VERSION')), 'v0.1.00\n');
  });

  each('links in the repo are written as plain files, so none can point outside the cache', async (t, s) => {
    const server = await s.server();
    await server.addRepo('links', s.tree({ ...BASIC, 'apps/evil': '-> /etc', 'apps/hello/passwd': '-> /etc/passwd' }));
    const dir = s.cache('links');
    await t.git.sync({ url: server.url('links'), branch: 'main' }, dir);
    assert.equal(lstatSync(join(dir, 'apps/evil')).isSymbolicLink(), false);
    assert.equal(lstatSync(join(dir, 'apps/hello/passwd')).isFile(), true);
    assert.equal(text(join(dir, 'apps/hello/passwd')), '/etc/passwd');
  });

  each('the token opens a locked repo; a wrong or missing one fails git_failed and never shows in the error', async (t, s) => {
    const locked = await s.server({ token: TOKEN });
    await locked.addRepo('apps', s.tree(BASIC));
    const ok = await t.git.sync({ url: locked.url('apps'), branch: 'main', token: TOKEN }, s.cache('tok'));
    assert.match(ok.sha, /^[0-9a-f]{40}$/);
    const wrong = await rejectsWith(t.git.sync({ url: locked.url('apps'), branch: 'main', token: 'tok-Wrong-456' }, s.cache('bad')), 'git_failed');
    assert.ok(!wrong.message.includes('tok-Wrong-456'), wrong.message);
    await rejectsWith(t.git.sync({ url: locked.url('apps'), branch: 'main' }, s.cache('none')), 'git_failed');
    assert.equal(existsSync(s.cache('bad')), false);
  });
}

function refusalCases(each: Each): void {
  each('refused URLs, branch names and tokens never reach the server and leave no folder', async (t, s) => {
    const server = await s.server();
    await server.addRepo('apps', s.tree(BASIC));
    const before = server.requests();
    for (const url of ['ext::sh -c touch% /tmp/kade-pwned', 'file:///etc', '/tmp', '--upload-pack=touch /tmp/kade-pwned', 'http://user:pw@example.com/a.git']) {
      await rejectsWith(t.git.sync({ url, branch: 'main' }, s.cache('x')), 'invalid_git_url');
    }
    for (const branch of ['--orphan', 'a..b', '-x']) await rejectsWith(t.git.sync({ url: server.url('apps'), branch }, s.cache('y')), 'validation');
    await rejectsWith(t.git.sync({ url: server.url('apps'), branch: 'main', token: 'a\nb' }, s.cache('z')), 'validation');
    assert.equal(server.requests(), before);
    assert.equal(existsSync('/tmp/kade-pwned'), false);
    for (const c of ['x', 'y', 'z']) assert.equal(existsSync(s.cache(c)), false);
  });

  each('an unknown branch or repo fails git_failed: a first sync leaves nothing behind, a later one leaves the cache as it was', async (t, s) => {
    const server = await s.server();
    await server.addRepo('apps', s.tree(BASIC));
    await rejectsWith(t.git.sync({ url: server.url('apps'), branch: 'nope' }, s.cache('nope')), 'git_failed');
    await rejectsWith(t.git.sync({ url: server.url('missing'), branch: 'main' }, s.cache('missing')), 'git_failed');
    const caches = dirname(s.cache('nope'));
    assert.deepEqual(existsSync(caches) ? readdirSync(caches) : [], [], 'no folder and no partial clone is left');
    const dir = s.cache('kept');
    const first = await t.git.sync({ url: server.url('apps'), branch: 'main' }, dir);
    await rejectsWith(t.git.sync({ url: server.url('apps'), branch: 'gone' }, dir), 'git_failed');
    assert.equal(text(join(dir, 'VERSION')), 'v0.1.00\n');
    assert.equal((await t.git.sync({ url: server.url('apps'), branch: 'main' }, dir)).sha, first.sha);
  });

  each('a repo past the cap on files or bytes is refused git_failed naming the limit, and leaves nothing behind', async (t, s) => {
    const server = await s.server();
    await server.addRepo('apps', s.tree({ ...BASIC, 'big.bin': 'x'.repeat(4096) }));
    const files = await rejectsWith(t.limited({ maxFiles: 3 }).sync({ url: server.url('apps'), branch: 'main' }, s.cache('files')), 'git_failed');
    assert.match(files.message, /more than 3 files/);
    const bytes = await rejectsWith(t.limited({ maxBytes: 2048 }).sync({ url: server.url('apps'), branch: 'main' }, s.cache('bytes')), 'git_failed');
    assert.match(bytes.message, /too large/);
    assert.equal(existsSync(s.cache('files')) || existsSync(s.cache('bytes')), false);
    await t.limited({ maxFiles: 4 }).sync({ url: server.url('apps'), branch: 'main' }, s.cache('fits'));
  });
}
