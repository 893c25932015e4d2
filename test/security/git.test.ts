import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createGitCli } from '../../src/server/catalogue/git-cli.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';

// The git boundary (a template repo is hostile input): injected URLs and refs never reach git, the
// user's own git config cannot run code, and huge, hanging or trickling servers are bounded, with
// no half-made cache left behind. Redirects and token scoping: src/server/catalogue/git-cli.int.test.ts.
let server: GitServer;
let work: string;
const MARKER = join(tmpdir(), `kade-git-pwned-${process.pid}`);

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'kade-gitsec-'));
  server = await startGitServer();
  await server.addRepo('apps', 'test/fixtures/repos/basic', { branch: 'main' });
});
after(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(MARKER, { force: true });
});

const BAD_URLS = [
  'ext::sh -c touch% /tmp/kade-git-pwned',
  'ext::git-upload-pack %s',
  'file:///etc',
  'FILE:///etc',
  'file://localhost/etc',
  '/etc',
  './relative',
  '../up',
  '~/repo',
  '--upload-pack=touch /tmp/kade-git-pwned',
  '-uhttp://127.0.0.1/x',
  '-c core.sshCommand=touch',
  'http://127.0.0.1/x\n--upload-pack=touch',
  'http://127.0.0.1/x\r\n',
  'http://user:pass@127.0.0.1/x.git',
  'https://token@127.0.0.1/x.git',
  'ssh://-oProxyCommand=touch/x',
  'ssh://127.0.0.1/x --upload-pack=touch',
  'fd::17',
  'git://127.0.0.1/x',
  'ftp://127.0.0.1/x',
  '',
  ' ',
];
const BAD_BRANCHES = [
  '--orphan',
  '-x',
  'a..b',
  'a b',
  'main@{1}',
  'HEAD@{0}',
  'x\ny',
  '../main',
  'main.lock',
  'a:b',
  'a~1',
  'a^',
  'a?b',
  'a*',
  'a[b',
  '\\x',
  '',
];

test(`${BAD_URLS.length} injected URLs are refused before git runs; nothing reaches the server or the disk`, async () => {
  const git = createGitCli({ timeoutMs: 10_000 });
  const requests = server.requests();
  for (const url of BAD_URLS) {
    const dir = join(work, 'cache-url');
    await assert.rejects(git.sync({ url, branch: 'main' }, dir), { code: 'invalid_git_url' }, JSON.stringify(url));
    assert.equal(existsSync(dir), false, url);
  }
  assert.equal(server.requests(), requests);
  assert.equal(existsSync('/tmp/kade-git-pwned'), false);
});

test(`${BAD_BRANCHES.length - 1} injected branch names are refused before git runs`, async () => {
  const git = createGitCli({ timeoutMs: 10_000 });
  const requests = server.requests();
  for (const branch of BAD_BRANCHES.filter((b) => b !== '')) {
    await assert.rejects(git.sync({ url: server.url('apps'), branch }, join(work, 'cache-branch')), { code: 'validation' }, JSON.stringify(branch));
  }
  assert.equal(server.requests(), requests);
});

test("hooks from the user's git config never run during a sync", async () => {
  const hooks = join(work, 'hooks');
  mkdirSync(hooks, { recursive: true });
  for (const hook of ['post-checkout', 'post-merge', 'reference-transaction', 'pre-auto-gc']) {
    writeFileSync(join(hooks, hook), `#!/bin/sh\ntouch ${MARKER}\n`);
    chmodSync(join(hooks, hook), 0o755);
  }
  const config = join(work, 'gitconfig');
  writeFileSync(config, `[core]\n\thooksPath = ${hooks}\n[alias]\n\tfetch = !touch ${MARKER}\n`);
  const saved = process.env.GIT_CONFIG_GLOBAL;
  process.env.GIT_CONFIG_GLOBAL = config;
  try {
    const git = createGitCli({ timeoutMs: 30_000 });
    const dir = join(work, 'cache-hooks');
    await git.sync({ url: server.url('apps'), branch: 'main' }, dir);
    await git.sync({ url: server.url('apps'), branch: 'main' }, dir);
    assert.ok(existsSync(join(dir, 'apps', 'hello', 'template.json')));
  } finally {
    if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
    else process.env.GIT_CONFIG_GLOBAL = saved;
  }
  assert.equal(existsSync(MARKER), false, 'a hook ran');
});

test('a repo larger than the cap is refused and leaves no clone behind', async () => {
  const tree = mkdtempSync(join(tmpdir(), 'kade-huge-'));
  cpSync('test/fixtures/repos/basic', tree, { recursive: true });
  writeFileSync(join(tree, 'apps', 'hello', 'blob.bin'), randomBytes(2 * 1024 * 1024));
  await server.addRepo('huge', tree, { branch: 'main' });
  rmSync(tree, { recursive: true, force: true });
  const parent = join(work, 'huge');
  mkdirSync(parent);
  const git = createGitCli({ timeoutMs: 30_000, maxBytes: 512 * 1024 });
  await assert.rejects(git.sync({ url: server.url('huge'), branch: 'main' }, join(parent, 'cache')), (err: { code?: string }) =>
    ['git_failed', 'validation'].includes(err.code ?? ''),
  );
  assert.deepEqual(readdirSync(parent), [], 'a temp clone or a half-made cache stayed');
});

/** A server that accepts connections and then says nothing, or one byte now and then. */
async function silentServer(trickle: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const srv: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    if (trickle) {
      s.write('HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-advertisement\r\n\r\n');
      const t = setInterval(() => s.write('0'), 500);
      s.on('close', () => clearInterval(t));
    }
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/repo.git`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => srv.close(() => r()));
    },
  };
}

for (const trickle of [false, true]) {
  test(`a ${trickle ? 'trickling' : 'hanging'} server is cut off at the time bound, and no clone stays`, async () => {
    const srv = await silentServer(trickle);
    const parent = join(work, `slow-${trickle}`);
    mkdirSync(parent);
    try {
      const git = createGitCli({ timeoutMs: 3_000 });
      const t0 = Date.now();
      await assert.rejects(git.sync({ url: srv.url, branch: 'main' }, join(parent, 'cache')), { code: 'git_failed' });
      assert.ok(Date.now() - t0 < 30_000, 'the bound held');
      assert.deepEqual(readdirSync(parent), []);
    } finally {
      await srv.close();
    }
  });
}
