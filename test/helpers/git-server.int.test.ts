import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { startGitServer } from './git-server.ts';

const execFileP = promisify(execFile);

async function scratch(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kade-git-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'home'));
  return dir;
}

/** A client git that never prompts and ignores the machine's git config. */
function client(dir: string) {
  const env = {
    ...process.env,
    HOME: join(dir, 'home'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
  };
  return async (args: string[], cwd = dir): Promise<string> => {
    const { stdout } = await execFileP('git', args, { cwd, env, timeout: 30_000 });
    return stdout.trim();
  };
}

async function fixture(dir: string, name: string, files: Record<string, string>): Promise<string> {
  const root = join(dir, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

test('clones a fixture repo over smart HTTP', async (t) => {
  const dir = await scratch(t);
  const server = await startGitServer();
  t.after(() => server.close());
  await server.addRepo('apps', await fixture(dir, 'v1', { 'README.md': 'one\n', 'apps/web/app.yml': 'name: web\n' }));

  const git = client(dir);
  await git(['clone', '--quiet', server.url('apps'), 'clone']);
  assert.equal(await readFile(join(dir, 'clone/apps/web/app.yml'), 'utf8'), 'name: web\n');
  assert.equal(await git(['rev-parse', '--abbrev-ref', 'HEAD'], join(dir, 'clone')), 'main');
  assert.equal(await git(['log', '-1', '--format=%an <%ae>'], join(dir, 'clone')), 'Kade Test <test@kade.invalid>');
  assert.ok(server.requests() >= 2, 'requests are counted');
});

test('shallow fetch with --depth 1 gets only the tip', async (t) => {
  const dir = await scratch(t);
  const server = await startGitServer();
  t.after(() => server.close());
  await server.addRepo('apps', await fixture(dir, 'v1', { 'a.txt': '1\n' }), { branch: 'stable' });
  const tip = await server.commit('apps', await fixture(dir, 'v2', { 'a.txt': '2\n' }), 'Second');

  const git = client(dir);
  const work = join(dir, 'shallow');
  await mkdir(work);
  await git(['init', '--quiet'], work);
  await git(['fetch', '--quiet', '--depth', '1', server.url('apps'), 'stable'], work);
  assert.equal(await git(['rev-parse', 'FETCH_HEAD'], work), tip);
  assert.equal(await git(['rev-list', '--count', 'FETCH_HEAD'], work), '1');
  await stat(join(work, '.git/shallow'));
  assert.equal(await git(['show', 'FETCH_HEAD:a.txt'], work), '2');

  // A pinned commit can be fetched shallowly too.
  const pinned = join(dir, 'pinned');
  await mkdir(pinned);
  await git(['init', '--quiet'], pinned);
  await git(['fetch', '--quiet', '--depth', '1', server.url('apps'), tip], pinned);
  assert.equal(await git(['rev-parse', 'FETCH_HEAD'], pinned), tip);
});

test('a token is required when set and a wrong token is refused', async (t) => {
  const dir = await scratch(t);
  const server = await startGitServer({ token: 's3cret' });
  t.after(() => server.close());
  await server.addRepo('private', await fixture(dir, 'v1', { 'x.txt': 'x\n' }));
  const git = client(dir);
  const basic = (token: string) => `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;

  const res = await fetch(`${server.url('private')}/info/refs?service=git-upload-pack`);
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), 'Basic realm="kade-test"');

  await assert.rejects(git(['clone', '--quiet', server.url('private'), 'none']), /Authentication failed|could not read/i);
  await assert.rejects(git(['-c', basic('wrong'), 'clone', '--quiet', server.url('private'), 'wrong']), /Authentication failed|could not read|401/i);

  await git(['-c', basic('s3cret'), 'clone', '--quiet', server.url('private'), 'header']);
  assert.equal(await readFile(join(dir, 'header/x.txt'), 'utf8'), 'x\n');
  const withCreds = server.url('private').replace('http://', 'http://x-access-token:s3cret@');
  await git(['clone', '--quiet', withCreds, 'creds']);
  assert.equal(await readFile(join(dir, 'creds/x.txt'), 'utf8'), 'x\n');
});

test('a second commit is visible after fetch', async (t) => {
  const dir = await scratch(t);
  const server = await startGitServer();
  t.after(() => server.close());
  await server.addRepo('apps', await fixture(dir, 'v1', { 'a.txt': 'one\n', 'gone.txt': 'bye\n' }));
  const git = client(dir);
  const work = join(dir, 'clone');
  await git(['clone', '--quiet', '--depth', '1', server.url('apps'), work]);
  const first = await git(['rev-parse', 'HEAD'], work);

  const second = await server.commit('apps', await fixture(dir, 'v2', { 'a.txt': 'two\n' }), 'Second');
  assert.notEqual(second, first);
  await git(['fetch', '--quiet', '--depth', '1', 'origin'], work);
  assert.equal(await git(['rev-parse', 'origin/main'], work), second);
  assert.equal(await git(['show', 'origin/main:a.txt'], work), 'two');
  assert.equal(await git(['ls-tree', '--name-only', 'origin/main'], work), 'a.txt', 'removed files are gone');
  assert.equal(await git(['log', '-1', '--format=%s', 'origin/main'], work), 'Second');
});
