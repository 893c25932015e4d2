import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { diedAtFailpoint, type KadeChild, startKadeChild } from '../helpers/kade-child.ts';
import { containerValues, docker, fileValues, readFiles, startJob, writePlainRepo } from './plain-app.ts';

// Kade killed during a snapshot restore (after each of its file replacements), at the reconfigure steps
// test/engine/interrupted-reconfigure.test.ts leaves out (after the second and the third file, before
// `up`, with the new containers already running), and once more while the next start rolls back. After
// the last start the files are wholly the version before the change, byte for byte, the running
// container carries that version, and the job ends `interrupted` saying it rolled back.
const APP = 'kadetest-rk-plain';
const root = mkdtempSync(join(tmpdir(), 'kade-rk-'));
const stateDir = join(root, 'state');
const baseDir = join(root, 'base');
const stackDir = join(baseDir, 'stacks', APP);
/** The version the app runs when each case starts; every change a case makes is rolled back to it. */
const CURRENT = { title: 'b', token: 'token-b-2' };
const ROLLED_BACK = /^rolled back to the snapshot of \d{4}-\d\d-\d\dT[\d:.]+Z$/;
let git: GitServer | undefined;
let live: KadeChild | undefined;
/** The snapshot the reconfigure to CURRENT took: the files of the version before (title `old`). */
let olderSnapshot = '';

async function start(failpoint?: string): Promise<{ k: KadeChild; api: ApiClient }> {
  const k = await startKadeChild({ stateDir, baseDir, ...(failpoint ? { failpoint } : {}) });
  live = k;
  const api = new ApiClient(k.url);
  await api.loginAs();
  return { k, api };
}

/** A Kade whose failpoint is reached while it starts (in the recovery it runs at start): it may die before it serves. */
async function diesWhileStarting(failpoint: string): Promise<void> {
  let k: KadeChild;
  try {
    k = await startKadeChild({ stateDir, baseDir, failpoint });
  } catch (err) {
    assert.match(String(err), /child Kade ended \(SIGKILL\) before it started/);
    return;
  }
  live = k;
  await diedAtFailpoint(k);
}

/** After the final start: the job is resolved, rolled back, and files and the running app are `before`. */
async function rolledBack(api: ApiClient, id: string, before: (string | null)[], what: string): Promise<void> {
  const j = await api.waitJob(id, 180_000);
  assert.equal(j.state, 'interrupted', j.log.join('\n'));
  assert.match(j.error ?? '', ROLLED_BACK, j.log.join('\n'));
  assert.equal(j.log.at(-1), `interrupted: ${j.error}`, 'the log closes with what the recovery did');
  assert.ok(
    j.log.some((l) => new RegExp(`^restored snapshot \\S+ of \\S+: the files are as they were before the ${what}$`).test(l)),
    j.log.join('\n'),
  );
  assert.deepEqual(readFiles(stackDir), before, 'compose file, .env and .svc.json are wholly the version before, byte for byte');
  assert.deepEqual(fileValues(stackDir), CURRENT);
  assert.deepEqual(await containerValues(api, APP), { ...CURRENT, state: 'running' }, 'the running container carries the version of the files');
  const stop = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/restart`));
  assert.equal(stop.state, 'succeeded', `the app's slot is free and the app restarts: ${stop.log.join('\n')}`);
}

/** The newest job of `kind` on the app (a snapshot restore answers its id only when it finishes). */
async function newestJob(api: ApiClient, kind: string): Promise<string> {
  const jobs = await api.get<{ id: string; kind: string; stack: string | null }[]>('/api/jobs');
  const j = jobs.body.find((x) => x.kind === kind && x.stack === APP);
  assert.ok(j, `a ${kind} job of ${APP}: ${JSON.stringify(jobs.body)}`);
  return j.id;
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  writePlainRepo(join(root, 'plain-repo'));
  git = await startGitServer();
  await git.addRepo('plain', join(root, 'plain-repo'), { branch: 'main' });
  const { k, api } = await start();
  await api.addSyncedRepo('Plain', git.url('plain'));
  const install = await api.waitJob(await startJob(api, 'POST', '/api/store/install', { repo: 'plain', app: 'plain', name: APP, values: {} }));
  assert.equal(install.state, 'succeeded', install.log.join('\n'));
  const rc = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/reconfigure`, { values: CURRENT }));
  assert.equal(rc.state, 'succeeded', rc.log.join('\n'));
  const snaps = await api.get<{ id: string; reason: string }[]>(`/api/stacks/${APP}/snapshots`);
  olderSnapshot = snaps.body.find((s) => s.reason === 'reconfigure')?.id ?? '';
  assert.ok(olderSnapshot, JSON.stringify(snaps.body));
  await k.kill();
});

after(async () => {
  await live?.kill();
  await git?.close();
  await cleanupLabelled();
  rmSync(root, { recursive: true, force: true });
});

for (const n of [1, 2, 3]) {
  test(`a snapshot restore killed after ${n} of its 3 files was replaced: rolled back to the files before the restore`, async () => {
    const before = readFiles(stackDir);
    const first = await start(`snapshot.restore.file@${n}`);
    const answer = first.api.post(`/api/stacks/${APP}/snapshots/${olderSnapshot}/restore`).then(
      (r) => `answered ${r.status}`,
      () => 'cut off',
    );
    await diedAtFailpoint(first.k);
    assert.equal(await answer, 'cut off', 'Kade died before it answered');
    const torn = readFiles(stackDir);
    assert.equal(torn.filter((f, i) => f !== before[i]).length, n, `the crash left ${n} file(s) of the snapshot in place`);

    const { k, api } = await start();
    await rolledBack(api, await newestJob(api, 'stack.snapshot_restore'), before, 'snapshot restore');
    await k.kill();
  });
}

/** A reconfigure to new values, Kade killed at `failpoint` or when `killWhen` returns, then started again. */
async function killedReconfigure(how: { failpoint?: string; killWhen?: () => Promise<void> }): Promise<{ id: string; before: (string | null)[] }> {
  const before = readFiles(stackDir);
  const first = await start(how.failpoint);
  const id = await startJob(first.api, 'POST', `/api/stacks/${APP}/reconfigure`, { values: { title: 'c', token: 'token-c-3' } });
  if (how.failpoint) await diedAtFailpoint(first.k);
  else {
    await how.killWhen?.();
    await first.k.kill();
  }
  return { id, before };
}

const FILE_STEPS = [
  { failpoint: 'reconfigure.file@2', when: 'after the compose file and .env were replaced, .svc.json still old' },
  { failpoint: 'reconfigure.file@3', when: 'after all three files were replaced, before compose checked them' },
  { failpoint: 'reconfigure.up', when: 'after the new files were checked, right before `up -d` (an app without database passwords)' },
];
for (const step of FILE_STEPS) {
  test(`a reconfigure killed ${step.when}: rolled back, the app runs the old values`, async () => {
    const { id, before } = await killedReconfigure({ failpoint: step.failpoint });
    const { k, api } = await start();
    await rolledBack(api, id, before, 'reconfigure');
    await k.kill();
  });
}

/** The app's container runs with the new title: `up -d` has recreated it, the job still waits for it to settle. */
async function newContainerRuns(): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ids = (await docker(['ps', '-q', '--filter', `label=com.docker.compose.project=${APP}`])).split('\n').filter(Boolean);
    for (const id of ids) {
      const env = JSON.parse(await docker(['inspect', '--format', '{{json .Config.Env}}', id])) as string[];
      if (env.includes('TITLE=c')) return;
    }
    assert.ok(Date.now() < deadline, 'the reconfigure started the new container');
    await sleep(25);
  }
}

test('a reconfigure killed while the new containers already run: rolled back, the containers are recreated with the old values', async () => {
  const { id, before } = await killedReconfigure({ killWhen: newContainerRuns });
  const { k, api } = await start();
  await rolledBack(api, id, before, 'reconfigure');
  await k.kill();
});

test('Kade killed again while the next start rolls a reconfigure back: the start after that finishes the rollback', async () => {
  const { id, before } = await killedReconfigure({ failpoint: 'reconfigure.file@3' });
  // The recovery restores the snapshot through the same code as a snapshot restore: die after its second file.
  await diesWhileStarting('snapshot.restore.file@2');
  assert.notDeepEqual(readFiles(stackDir), before, 'the second crash left the rollback half done');
  const { k, api } = await start();
  await rolledBack(api, id, before, 'reconfigure');
  const log = (await api.waitJob(id)).log;
  assert.equal(log.filter((l) => l === 'Kade restarted while this job was running: resolving it').length, 2, log.join('\n'));
  await k.kill();
});
