import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ApiAnswer, ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { type Registry, startRegistry } from '../helpers/registry.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { containerValues, docker, fileValues, readFiles, startJob, writePlainRepo } from './plain-app.ts';

// Two jobs fired at one app at the same moment through the HTTP API: a reconfigure against a restart,
// stop, update, delete or a second reconfigure, in both orders. Exactly one is accepted; the other is
// refused with 409 `slot_busy` naming the job that holds the app. The files are then wholly one of the
// two versions, the containers carry what the files say, and the refused job, started again once the
// first ended, succeeds. The app's image comes from a local registry, so an update really pulls.
const root = mkdtempSync(join(tmpdir(), 'kade-two-'));
const APP = 'kadetest-two-app';
let registry: Registry | undefined;
let image = '';
let git: GitServer | undefined;
let kade: TestServer | undefined;
let api: ApiClient;

const stackDir = () => join(kade?.baseDir ?? '', 'stacks', APP);

type Op = 'reconfigure' | 'reconfigure-other' | 'restart' | 'stop' | 'update' | 'delete';
/** The values a reconfigure of round `round` sets ('reconfigure-other' is a second user's change). */
const valuesOf = (op: Op, round: number) => ({ title: `${op === 'reconfigure' ? 'a' : 'b'}${round}`, token: `token-${op}-${round}` });

function fire(op: Op, round: number): Promise<ApiAnswer<{ job: { id: string }; code?: string; params?: Record<string, string> }>> {
  if (op === 'reconfigure' || op === 'reconfigure-other') return api.post(`/api/stacks/${APP}/reconfigure`, { values: valuesOf(op, round) });
  if (op === 'delete') return api.del(`/api/stacks/${APP}`);
  return api.post(`/api/stacks/${APP}/${op}`);
}

async function install(): Promise<void> {
  const j = await api.waitJob(await startJob(api, 'POST', '/api/store/install', { repo: 'plain', app: 'plain', name: APP, values: {} }));
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
}

/** Containers and files agree after `op` ran: the values of the files, running (or stopped after a stop); nothing after a delete. */
async function agrees(op: Op | 'install'): Promise<void> {
  if (op === 'delete') {
    assert.equal(existsSync(stackDir()), false, 'the folder is gone');
    assert.equal(await docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${APP}`]), '', 'no container is left');
    assert.equal((await api.get(`/api/stacks/${APP}`)).status, 404);
    return;
  }
  const c = await containerValues(api, APP);
  assert.deepEqual({ title: c.title, token: c.token }, fileValues(stackDir()), 'the container carries the values of the files');
  assert.equal(c.state, op === 'stop' ? 'exited' : 'running');
}

/** One round: `first` and `second` fired together; exactly one accepted, the other refused naming it. */
async function round(n: number, first: Op, second: Op): Promise<void> {
  const before = readFiles(stackDir());
  const snapshots = (await api.get<unknown[]>(`/api/stacks/${APP}/snapshots`)).body.length;
  const answers = await Promise.all([fire(first, n), fire(second, n)]);
  const statuses = answers.map((a) => a.status);
  assert.deepEqual([...statuses].sort(), [202, 409], `one accepted, one refused: ${first} ${statuses[0]}, ${second} ${statuses[1]}`);
  const winIndex = statuses.indexOf(202);
  const won = answers[winIndex];
  const lost = answers[1 - winIndex];
  const [winner, loser] = winIndex === 0 ? [first, second] : [second, first];
  assert.ok(won && lost);
  const id = won.body.job.id;
  assert.equal(lost.headers.get('content-type'), 'application/problem+json');
  assert.deepEqual(
    { code: lost.body.code, params: lost.body.params },
    { code: 'slot_busy', params: { stack: APP, job: id } },
    `the refusal names the running job`,
  );

  const j = await api.waitJob(id);
  assert.equal(j.state, 'succeeded', `${winner}: ${j.log.join('\n')}`);
  assert.equal(j.log.at(-1), 'done');
  // The files are wholly one version: the winner's, never a mix with the refused change.
  if (winner === 'reconfigure' || winner === 'reconfigure-other') assert.deepEqual(fileValues(stackDir()), valuesOf(winner, n));
  else if (winner !== 'delete') assert.deepEqual(readFiles(stackDir()), before, `${winner} left the files byte for byte`);
  if (loser.startsWith('reconfigure') && winner !== 'delete') {
    // The refused reconfigure left no trace: one snapshot more only when the winner was a reconfigure.
    const now = (await api.get<unknown[]>(`/api/stacks/${APP}/snapshots`)).body.length;
    assert.equal(now, snapshots + (winner.startsWith('reconfigure') ? 1 : 0));
  }
  await agrees(winner);

  // The refused job, started again now that the app is free, goes through (a deleted app is installed again instead).
  if (winner === 'delete') {
    await install();
    await agrees('install');
    return;
  }
  const again = await fire(loser, n);
  assert.equal(again.status, 202, JSON.stringify(again.body));
  const aj = await api.waitJob(again.body.job.id);
  assert.equal(aj.state, 'succeeded', `${loser} after ${winner}: ${aj.log.join('\n')}`);
  if (loser.startsWith('reconfigure')) assert.deepEqual(fileValues(stackDir()), valuesOf(loser, n));
  await agrees(loser);
  if (loser === 'stop') {
    const up = await api.waitJob(await startJob(api, 'POST', `/api/stacks/${APP}/start`));
    assert.equal(up.state, 'succeeded', up.log.join('\n'));
  }
  if (loser === 'delete') await install();
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  registry = await startRegistry();
  image = `${registry.host}/kadetest/busybox:1`;
  await docker(['tag', 'kade-test/busybox:1', image]);
  await docker(['push', image]);
  writePlainRepo(join(root, 'plain-repo'), image);
  git = await startGitServer();
  await git.addRepo('plain', join(root, 'plain-repo'), { branch: 'main' });
  kade = await startTestServer();
  api = new ApiClient(kade.url);
  await api.loginAs();
  await api.addSyncedRepo('Plain', git.url('plain'));
  await install();
});

after(async () => {
  await kade?.close();
  await git?.close();
  await cleanupLabelled();
  if (image) {
    // The push and the pulls leave `repo@digest` references: only this registry's go.
    const refs = (await docker(['images', '--digests', '--format', '{{.Repository}}@{{.Digest}}'])).split('\n');
    for (const r of refs.filter((x) => x.startsWith(`${registry?.host}/`) && x.includes('@sha256:'))) await docker(['rmi', r]).catch(() => undefined);
    await docker(['rmi', '--force', image]).catch(() => undefined);
  }
  await registry?.close();
  rmSync(root, { recursive: true, force: true });
});

const ROUNDS: [Op, Op][] = [
  ['reconfigure', 'restart'],
  ['restart', 'reconfigure'],
  ['reconfigure', 'stop'],
  ['stop', 'reconfigure'],
  ['reconfigure', 'update'],
  ['update', 'reconfigure'],
  ['reconfigure', 'reconfigure-other'],
  ['reconfigure-other', 'reconfigure'],
  ['reconfigure', 'delete'],
  ['delete', 'reconfigure'],
];

test('two jobs fired at one app together, 10 rounds: one accepted, the other refused naming it; files and containers are one version; the refused job then succeeds', async () => {
  for (const [i, [first, second]] of ROUNDS.entries()) await round(i + 1, first, second);
});

test('an .env save fired together with a reconfigure: refused while the reconfigure runs, or saved first and kept by it, never lost', async () => {
  for (let n = 1; n <= 3; n++) {
    const env = await api.get<{ content: string }>(`/api/stacks/${APP}/env`);
    const line = `EXTRA_${n}=kept-${n}`;
    const [rc, save] = await Promise.all([
      fire('reconfigure', 100 + n),
      api.put<{ code: string; params: Record<string, string> }>(`/api/stacks/${APP}/env`, { content: `${env.body.content}${line}\n` }),
    ]);
    assert.equal(rc.status, 202, JSON.stringify(rc.body));
    const j = await api.waitJob(rc.body.job.id);
    assert.equal(j.state, 'succeeded', j.log.join('\n'));
    assert.deepEqual(fileValues(stackDir()), valuesOf('reconfigure', 100 + n));
    const envText = readFileSync(join(stackDir(), '.env'), 'utf8');
    if (save.status === 409) {
      assert.deepEqual({ code: save.body.code, params: save.body.params }, { code: 'slot_busy', params: { stack: APP, job: rc.body.job.id } });
      assert.ok(!envText.includes(line), 'the refused save wrote nothing');
    } else {
      assert.equal(save.status, 200, JSON.stringify(save.body));
      assert.ok(envText.includes(`${line}\n`), `the save came first and the reconfigure kept its line:\n${envText}`);
    }
    await agrees('reconfigure');
  }
});
