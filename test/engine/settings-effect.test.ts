import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// A setting a user can save takes effect: TIMEZONE is the TZ of the next install's containers.
const execFileP = promisify(execFile);
const suite = useEngineSuite();

async function install(name: string): Promise<void> {
  const r = await suite.api.post<{ job: { id: string } }>('/api/store/install', { repo: 'basic', app: 'notes', name, values: { greeting: 'tz' } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await suite.api.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
}

/** TZ of the running container of the app's web service, as the engine has it. */
async function runningTz(name: string): Promise<string | undefined> {
  const detail = await suite.api.get<{ containers: { id: string; service: string }[] }>(`/api/stacks/${name}`);
  const id = detail.body.containers.find((c) => c.service === 'web')?.id;
  assert.ok(id, JSON.stringify(detail.body));
  const { stdout } = await execFileP('docker', ['inspect', '--format', '{{json .Config.Env}}', id], { timeout: 30_000 });
  return (JSON.parse(stdout) as string[]).find((e) => e.startsWith('TZ='))?.slice(3);
}

test('TIMEZONE: a changed zone is the TZ of the next install, in its compose file and its running containers', async () => {
  await suite.api.addSyncedRepo('basic', suite.git.url('basic'));
  for (const [zone, name] of [
    ['Asia/Tokyo', 'kadetest-tz-tokyo'],
    ['America/Sao_Paulo', 'kadetest-tz-saopaulo'],
  ] as const) {
    const put = await suite.api.put('/api/settings', { TIMEZONE: zone });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    await install(name);
    const compose = readFileSync(join(suite.kade.baseDir, 'stacks', name, 'docker-compose.yml'), 'utf8');
    assert.match(compose, new RegExp(`TZ: ${zone}`), compose);
    assert.equal(await runningTz(name), zone);
  }
});
