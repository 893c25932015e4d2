import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { containerValues, fileValues, readFiles, startJob, writePlainRepo } from './plain-app.ts';

// A full disk while Kade writes an app's files: BASE_DIR is a small tmpfs, filled until one page is
// left: a reconfigure's backup (made first) does not fit, an editor's new file, an install's `.env` do not.
// Every write must fail (`disk_full` naming the file where Kade writes one), leave the old files byte for
// byte (no temp file behind), and leave the app running its old configuration; once space is freed the
// same change succeeds.
const execFileP = promisify(execFile);
const SKIP = process.getuid?.() === 0 ? false : 'mounting a tmpfs as BASE_DIR needs root (CI runs the tests as root)';
const root = mkdtempSync(join(tmpdir(), 'kade-full-'));
const base = join(root, 'base');
const filler = join(base, 'filler');
const APP = 'kadetest-full-app';
const OTHER = 'kadetest-full-other';
const PAGE = 4096;
/** The longest value a form field takes: the new `.env` needs two pages, the new compose file one. */
const BIG_TOKEN = `t${'0123456789'.repeat(399)}`;
let mounted = false;
let git: GitServer | undefined;
let kade: TestServer | undefined;
let api: ApiClient;

const stackDir = (name = APP) => join(base, 'stacks', name);
const free = () => {
  const s = statfsSync(base);
  return s.bavail * s.bsize;
};

/** Fills the tmpfs until `left` bytes are free. */
function fill(left: number): void {
  rmSync(filler, { force: true });
  writeFileSync(filler, Buffer.alloc(free() - left));
  assert.equal(free(), left, 'the disk is full up to the space left on purpose');
}

before(async () => {
  if (SKIP) return;
  await requireEngine();
  await cleanupLabelled();
  mkdirSync(base);
  await execFileP('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0755', 'tmpfs', base]);
  mounted = true;
  writePlainRepo(join(root, 'plain-repo'));
  git = await startGitServer();
  await git.addRepo('plain', join(root, 'plain-repo'), { branch: 'main' });
  kade = await startTestServer({ baseDir: base, stateDir: join(root, 'state') });
  api = new ApiClient(kade.url);
  await api.loginAs();
  // A reconfigure makes a backup first (issue #24 item 3), into BACKUP_DIR on this small disk: no reserve kept free.
  assert.equal((await api.put('/api/settings', { DISK_MIN_FREE_GB: 0 })).status, 200);
  await api.addSyncedRepo('Plain', git.url('plain'));
  const j = await api.waitJob(await startJob(api, 'POST', '/api/store/install', { repo: 'plain', app: 'plain', name: APP, values: {} }));
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
});

after(async () => {
  await kade?.close();
  await git?.close();
  if (mounted) await execFileP('umount', [base]).catch(() => execFileP('umount', ['-l', base]));
  if (!SKIP) await cleanupLabelled();
  rmSync(root, { recursive: true, force: true });
});

test('a reconfigure on a full disk: the backup it makes first does not fit, the job says nothing was changed, the old files and the running app are untouched', {
  skip: SKIP,
}, async () => {
  const old = readFiles(stackDir());
  const listing = readdirSync(stackDir()).sort();
  fill(PAGE);
  const j = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/reconfigure`, { values: { title: 'new', token: BIG_TOKEN } }));
  assert.equal(j.state, 'failed', j.log.join('\n'));
  // The store's own refusal of a file that does not fit mid-reconfigure is the unit tests' (use-cases/reconfigure.test.ts).
  assert.match(j.error ?? '', /^no backup could be made before the reconfigure, so nothing was changed: /, j.log.join('\n'));
  assert.deepEqual(readFiles(stackDir()), old, 'compose file, .env and .svc.json are the old ones byte for byte');
  assert.deepEqual(readdirSync(stackDir()).sort(), listing, 'no temp file is left beside them');
  assert.deepEqual(await containerValues(api, APP), { title: 'old', token: 'token-old-1', state: 'running' }, 'the app runs its old configuration');
  assert.equal(free(), PAGE, 'the space the backup took is given back');
});

test('the .env and compose editors on a full disk: 507 disk_full naming the file, the old file byte for byte', { skip: SKIP }, async () => {
  const old = readFiles(stackDir());
  fill(PAGE);
  const env = await api.get<{ content: string }>(`/api/stacks/${APP}/env?reveal=1`);
  const saveEnv = await api.put<{ code: string; params: { path: string } }>(`/api/stacks/${APP}/env`, {
    content: `${env.body.content}EXTRA=${'x'.repeat(8000)}\n`,
  });
  assert.equal(saveEnv.status, 507, JSON.stringify(saveEnv.body));
  assert.equal(saveEnv.headers.get('content-type'), 'application/problem+json');
  assert.deepEqual({ code: saveEnv.body.code, path: saveEnv.body.params.path }, { code: 'disk_full', path: join(stackDir(), '.env') });

  const compose = await api.get<{ content: string }>(`/api/stacks/${APP}/compose`);
  const saveCompose = await api.put<{ code: string; params: { path: string } }>(`/api/stacks/${APP}/compose`, {
    content: `${compose.body.content}# ${'x'.repeat(8000)}\n`,
  });
  assert.equal(saveCompose.status, 507, JSON.stringify(saveCompose.body));
  assert.deepEqual({ code: saveCompose.body.code, path: saveCompose.body.params.path }, { code: 'disk_full', path: join(stackDir(), 'docker-compose.yml') });

  assert.deepEqual(readFiles(stackDir()), old, 'compose file, .env and .svc.json are the old ones byte for byte');
  assert.deepEqual(await containerValues(api, APP), { title: 'old', token: 'token-old-1', state: 'running' });
});

test('an install on a full disk fails with disk full and leaves no folder behind', { skip: SKIP }, async () => {
  fill(PAGE);
  const j = await api.waitJob(await startJob(api, 'POST', '/api/store/install', { repo: 'plain', app: 'plain', name: OTHER, values: { token: BIG_TOKEN } }));
  assert.equal(j.state, 'failed', j.log.join('\n'));
  assert.match(j.error ?? '', new RegExp(`^disk full: there is no space left to write ${join(base, 'stacks')}/\\.tmp-${OTHER}-[0-9a-f]{8}/\\.env$`));
  assert.deepEqual(
    readdirSync(join(base, 'stacks')).filter((n) => n.includes(OTHER)),
    [],
    'neither a temp folder nor an app folder',
  );
  assert.equal((await api.get(`/api/stacks/${OTHER}`)).status, 404);
});

test('with space freed, the same changes succeed', { skip: SKIP }, async () => {
  rmSync(filler);
  const j = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/reconfigure`, { values: { title: 'new', token: BIG_TOKEN } }));
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  assert.deepEqual(fileValues(stackDir()), { title: 'new', token: BIG_TOKEN });
  assert.deepEqual(await containerValues(api, APP), { title: 'new', token: BIG_TOKEN, state: 'running' });

  const env = await api.get<{ content: string }>(`/api/stacks/${APP}/env?reveal=1`);
  const envText = `${env.body.content}EXTRA=${'x'.repeat(8000)}\n`;
  const saveEnv = await api.put(`/api/stacks/${APP}/env`, { content: envText });
  assert.equal(saveEnv.status, 200, JSON.stringify(saveEnv.body));
  assert.equal(readFileSync(join(stackDir(), '.env'), 'utf8'), envText);

  const compose = await api.get<{ content: string }>(`/api/stacks/${APP}/compose`);
  const composeText = `${compose.body.content}# ${'x'.repeat(8000)}\n`;
  const saveCompose = await api.put(`/api/stacks/${APP}/compose`, { content: composeText });
  assert.equal(saveCompose.status, 200, JSON.stringify(saveCompose.body));
  assert.equal(readFileSync(join(stackDir(), 'docker-compose.yml'), 'utf8'), composeText);

  const install = await api.waitJob(
    await startJob(api, 'POST', '/api/store/install', { repo: 'plain', app: 'plain', name: OTHER, values: { token: BIG_TOKEN } }),
  );
  assert.equal(install.state, 'succeeded', install.log.join('\n'));

  for (const name of [APP, OTHER]) {
    const del = await api.waitJob(await startJob(api, 'DELETE', `/api/stacks/${name}`));
    assert.equal(del.state, 'succeeded', del.log.join('\n'));
  }
});
