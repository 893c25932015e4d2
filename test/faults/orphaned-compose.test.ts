import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { type KadeChild, startKadeChild } from '../helpers/kade-child.ts';
import { containerValues, fileValues, readFiles, startJob, writePlainRepo } from './plain-app.ts';

// Kade SIGKILLed while the `docker-compose up` of a reconfigure runs, and only Kade: its compose child is
// left to the kernel (no process-group kill by the test), as when Kade dies alone. No compose process of
// the app may outlive Kade: one that did would finish recreating the containers with the new values after
// the next start rolled the files back, and the app would run what the job says it undid. Several timings
// into `up`, each followed by a new Kade on the same state.
const APP = 'kadetest-orphan';
const root = mkdtempSync(join(tmpdir(), 'kade-orphan-'));
const stateDir = join(root, 'state');
const baseDir = join(root, 'base');
const stackDir = join(baseDir, 'stacks', APP);
const ROLLED_BACK = /^rolled back to the snapshot of \d{4}-\d\d-\d\dT/;
let git: GitServer | undefined;
let live: KadeChild | undefined;

async function start(): Promise<{ k: KadeChild; api: ApiClient }> {
  const k = await startKadeChild({ stateDir, baseDir });
  live = k;
  const api = new ApiClient(k.url);
  await api.loginAs();
  return { k, api };
}

/** Live compose processes (docker-compose, `docker compose` or setpriv about to become one) of the project, from /proc. */
function composeOf(project: string, sub?: string): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const n of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
      if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))) continue;
      const argv = readFileSync(`/proc/${n}/cmdline`, 'utf8').split('\0');
      const p = argv.indexOf('-p');
      const isCompose = argv.some((a) => a.endsWith('docker-compose') || a === 'compose');
      if (isCompose && p >= 0 && argv[p + 1] === project && (sub === undefined || argv.includes(sub))) out.push({ pid: Number(n), cmd: argv.join(' ') });
    } catch {
      // ended while listed
    }
  }
  return out;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

async function until<T>(fn: () => T | null, what: string, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== null) return v;
    assert.ok(Date.now() < deadline, what);
    await sleep(10);
  }
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  const repoDir = join(root, 'plain-repo');
  // The up of a reconfigure outlasts the longest delay below, also on an idle machine.
  writePlainRepo(repoDir, undefined, { slowUp: true });
  git = await startGitServer();
  await git.addRepo('plain', repoDir, { branch: 'main' });
  const { k, api } = await start();
  await api.addSyncedRepo('Plain', git.url('plain'));
  const id = await startJob(api, 'POST', '/api/store/install', { repo: 'plain', app: 'plain', name: APP, values: {} });
  const j = await api.waitJob(id);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  await k.kill();
});

after(async () => {
  await live?.kill();
  await git?.close();
  await cleanupLabelled();
  rmSync(root, { recursive: true, force: true });
});

for (const [i, delayMs] of [0, 400, 900].entries()) {
  test(`Kade killed ${delayMs} ms into the reconfigure's compose up: no compose process survives, the next start runs the old values`, async () => {
    const oldFiles = readFiles(stackDir);
    const oldValues = fileValues(stackDir);
    const first = await start();
    const id = await startJob(first.api, 'POST', `/api/stacks/${APP}/reconfigure`, { values: { title: `new-${i}`, token: `token-new-${i}` } });
    await until(() => (composeOf(APP, 'up').length > 0 ? true : null), 'the reconfigure reached compose up', 60_000);
    await sleep(delayMs);
    const running = composeOf(APP, 'up');
    assert.ok(running.length > 0, 'compose up still runs when Kade is killed (else this timing proves nothing)');
    // Kade alone, not its process group: what its children do next is up to Kade's own arrangements.
    process.kill(first.k.child.pid as number, 'SIGKILL');
    await first.k.exited;
    await sleep(500);
    const survivors = composeOf(APP);
    // Ended here so a failure does not leave them to change the app under the next case.
    await first.k.kill();
    for (const s of survivors) killQuietly(s.pid);
    assert.deepEqual(survivors, [], 'no compose process of the app outlives Kade');

    const { k, api } = await start();
    const j = await api.waitJob(id, 180_000);
    assert.equal(j.state, 'interrupted', j.log.join('\n'));
    assert.match(j.error ?? '', ROLLED_BACK, j.log.join('\n'));
    assert.deepEqual(readFiles(stackDir), oldFiles, 'the files are the old ones byte for byte');
    // A compose run that survived would finish after the recovery: look again once it would have.
    for (const wait of [0, 3_000]) {
      await sleep(wait);
      const c = await containerValues(api, APP);
      assert.equal(c.state, 'running', 'the app runs');
      assert.deepEqual({ title: c.title, token: c.token }, oldValues, `the running container carries the rolled-back values (after ${wait} ms)`);
    }
    assert.deepEqual(composeOf(APP), [], 'no compose process of the app is left once the recovery is done');
    await k.kill();
  });
}
