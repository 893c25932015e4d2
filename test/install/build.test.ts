// The one install that builds Kade's image itself (compose build from the cloned source on the local
// base image kade-test/node:20; docker's layer cache from kadeImage() keeps it short), running as a
// new system account 'svc' that --purge removes again. The other cases pull (install.test.ts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { kadeImage, TEST_BASE_IMAGE } from '../helpers/kade-image.ts';
import { freePort, removeAll, runInstaller, SHELLS, tempDir } from './installer.ts';
import { envValue, headTree, run } from './source.ts';

const execFileP = promisify(execFile);
const shell = SHELLS[0] ?? { name: 'dash', argv: ['dash'] };
const project = 'kadetest-install-build';

async function accountExists(name: string): Promise<boolean> {
  return execFileP('id', ['-u', name]).then(
    () => true,
    () => false,
  );
}

let git: GitServer | undefined;
let tree = '';
let root = '';
let svcBefore = true;

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  // Warms docker's layer cache with the same Dockerfile and base the installer's build uses.
  await kadeImage();
  tree = await headTree();
  git = await startGitServer();
  await git.addRepo('kade', tree);
  root = await tempDir('build');
  svcBefore = await accountExists('svc');
});

after(async () => {
  const dir = join(root, 'kade');
  if (existsSync(join(dir, 'compose.yaml'))) {
    await run('sh', ['-c', 'cd "$1" && docker-compose down -v || docker compose down -v', 'sh', dir]).catch(() => undefined);
  }
  if (!svcBefore && (await accountExists('svc'))) await execFileP('userdel', ['svc']).catch(() => undefined);
  await git?.close();
  await cleanupLabelled();
  await removeAll(tree, root);
});

test(`install.sh under ${shell.name} builds the image from the cloned source, runs Kade as the new account svc, and --purge removes it all`, async () => {
  const dir = join(root, 'kade');
  const base = join(root, 'base');
  const port = await freePort();
  const r = await runInstaller(shell, ['--yes', '--user', 'svc', '--dir', dir, '--base-dir', base, '--port', String(port)], {
    env: { ...process.env, SVC_SOURCE_URL: git?.url('kade'), SVC_BASE_IMAGE: TEST_BASE_IMAGE, COMPOSE_PROJECT_NAME: project, SVC_IMAGE: '' },
    timeoutMs: 900_000,
  });
  assert.equal(r.code, 0, r.output);
  assert.match(r.stdout, /Building the image/);
  assert.match(r.stdout, new RegExp(`Kade runs at http://127\\.0\\.0\\.1:${port}/`));
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  assert.equal(res.status, 200);
  const uid = (await execFileP('id', ['-u', 'svc'])).stdout.trim();
  assert.equal(await envValue(join(dir, '.env'), 'SVC_UID'), uid);
  assert.equal((await stat(base)).uid, Number(uid), 'the base directory belongs to svc');
  const container = await run('docker', ['ps', '-q', '--filter', `label=com.docker.compose.project=${project}`]);
  const pid = await run('docker', ['inspect', '--format', '{{.State.Pid}}', container]);
  const status = await run('sh', ['-c', `ps -o uid= -p ${pid}; for p in $(pgrep -P ${pid}); do ps -o uid= -p $p; done`]);
  assert.match(status, new RegExp(`\\b${uid}\\b`), 'Kade runs as svc');

  const p = await runInstaller(shell, ['--uninstall', '--purge', '--yes', '--dir', dir], { env: { ...process.env } });
  assert.equal(p.code, 0, p.output);
  assert.equal(existsSync(base), false);
  if (!svcBefore) {
    assert.match(p.stdout, /Remove the account 'svc'\? \[y\/N\] yes/);
    assert.equal(await accountExists('svc'), false, 'the account is removed');
  }
});
