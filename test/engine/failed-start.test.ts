import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// Containers that do not come up: their logs and health-check output land in the job log.
const suite = useEngineSuite();

function writeStack(name: string, service: string): void {
  const dir = join(suite.kade.baseDir, 'stacks', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'docker-compose.yml'), `services:\n${service}`);
}

async function startFails(name: string): Promise<string> {
  await suite.api.acceptFiles(name);
  const r = await suite.api.post(`/api/stacks/${name}/start`);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await suite.api.waitJob(r.body.job.id);
  assert.equal(job.state, 'failed', job.log.join('\n'));
  const again = await suite.api.post(`/api/stacks/${name}/stop`);
  assert.equal(again.status, 202, 'the failed job released the slot');
  await suite.api.waitJob(again.body.job.id);
  return job.log.join('\n');
}

test('a container that exits at once: its own output is in the job log', async () => {
  writeStack(
    'kadetest-fail-exit',
    '  app:\n    image: kade-test/busybox:1\n    init: true\n    labels: {kade.test: "1"}\n    command: ["sh", "-c", "echo boom-for-the-log; exit 3"]\n',
  );
  const log = await startFails('kadetest-fail-exit');
  assert.match(log, /container kadetest-fail-exit[_-]app[_-]1 is exited/);
  assert.match(log, /\| boom-for-the-log/);
});

test('an unhealthy container: its health-check output is in the job log', async () => {
  writeStack(
    'kadetest-fail-health',
    '  app:\n    image: kade-test/busybox:1\n    init: true\n    labels: {kade.test: "1"}\n    command: ["sleep", "300"]\n    healthcheck:\n      test: ["CMD", "sh", "-c", "echo health-says-no; exit 1"]\n      interval: 1s\n      timeout: 2s\n      retries: 1\n',
  );
  const log = await startFails('kadetest-fail-health');
  assert.match(log, /\(unhealthy\)/);
  assert.match(log, /health check \(exit 1\): health-says-no/);
});
