import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// The app list answers from a model of the containers that the engine's event stream keeps current (issue #18):
// a change made on the engine outside Kade shows in the list within a second.
const execFileP = promisify(execFile);
const APP = 'kadetest-fleet-model';
const CONTAINER = `${APP}-web-1`;
const suite = useEngineSuite();

const docker = async (...args: string[]) => (await execFileP('docker', args, { timeout: 60_000 })).stdout.trim();

const status = async (): Promise<string | undefined> =>
  (await suite.api.get<{ name: string; status: string }[]>('/api/stacks')).body.find((s) => s.name === APP)?.status;

const containerStates = async (): Promise<string> =>
  (await suite.api.get<{ containers: { state: string }[] }>(`/api/stacks/${APP}`)).body.containers.map((c) => c.state).join(',');

/** Polls for one second after the change; the answer must have changed by then. */
async function seenWithinASecond(expected: string, read: () => Promise<string | undefined> = status): Promise<void> {
  const deadline = Date.now() + 1000;
  let last: string | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (last === expected) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`Kade still says '${last}' a second after the change, expected '${expected}'`);
}

test('a container started, stopped and removed outside Kade changes the app list within a second', async () => {
  // An app folder as an install leaves it, and its container made by hand with compose's labels.
  const dir = join(suite.kade.baseDir, 'stacks', APP);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    'services:\n  web:\n    image: kade-test/busybox:1\n    init: true\n    command: ["sleep", "3600"]\n    labels:\n      kade.test: "1"\n',
  );
  assert.equal(await status(), 'stopped', 'no container yet');
  await docker(
    'create',
    '--name',
    CONTAINER,
    '--init',
    '--label',
    'kade.test=1',
    '--label',
    `com.docker.compose.project=${APP}`,
    '--label',
    'com.docker.compose.service=web',
    '--label',
    `com.docker.compose.project.working_dir=${dir}`,
    'kade-test/busybox:1',
    'sleep',
    '3600',
  );
  await docker('start', CONTAINER);
  await seenWithinASecond('running');
  await docker('stop', '-t', '1', CONTAINER);
  await seenWithinASecond('stopped');
  await docker('start', CONTAINER);
  await seenWithinASecond('running');
  assert.equal(await containerStates(), 'running');
  await docker('rm', '-f', CONTAINER);
  await seenWithinASecond('', containerStates);
  assert.equal(await status(), 'stopped');
});

test('a job that fails shows in the very next list answer, though the list is sent from bytes kept between answers', async () => {
  const app = 'kadetest-fleet-failing';
  const dir = join(suite.kade.baseDir, 'stacks', app);
  mkdirSync(dir, { recursive: true });
  // An image that exists nowhere: the start job fails at once, without touching a registry beyond loopback.
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    'services:\n  web:\n    image: 127.0.0.1:1/kadetest/missing:0\n    init: true\n    labels:\n      kade.test: "1"\n',
  );
  const row = async () => {
    const r = await suite.api.get<{ name: string; status: string; failure: { job: string; state: string } | null }[]>('/api/stacks');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    return r.body.find((s) => s.name === app);
  };
  // A new folder shows within the half second the file-derived part of the list is kept.
  await seenWithinASecond('stopped', async () => (await row())?.status);
  assert.equal((await row())?.failure, null, 'no job yet');
  // Twice without a change: the second answer is the same list.
  assert.deepEqual(await row(), await row());
  await suite.api.acceptFiles(app);
  const started = await suite.api.post<{ job: { id: string } }>(`/api/stacks/${app}/start`);
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const job = await suite.api.waitJob(started.body.job.id);
  assert.equal(job.state, 'failed', job.log.join('\n'));
  const failure = (await row())?.failure;
  assert.equal(failure?.job, started.body.job.id, 'the failed start is in the first answer after the job ended');
  assert.equal(failure?.state, 'failed');
});
