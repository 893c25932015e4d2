import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// Each installed app owns DATA_DIR/<its name> (issue 11 item 0): two installs of one template never share
// a data folder, and "remove data" removes exactly what one app used.
const execFileP = promisify(execFile);
const A = 'kadetest-keep-a';
const B = 'kadetest-keep-b';
const suite = useEngineSuite();
const dataDir = () => join(suite.kade.baseDir, 'appdata');
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 60_000 })).stdout.trim();
const volumes = async (project: string) =>
  (await docker(['volume', 'ls', '-q', '--filter', `label=com.docker.compose.project=${project}`])).split('\n').filter(Boolean);

async function until(fn: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (fn()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`${what} did not happen within ${timeoutMs} ms`);
}

async function install(name: string, values: Record<string, string>) {
  const r = await suite.api.post<{ job: { id: string } }>('/api/store/install', { repo: 'appdata', app: 'keeper', name, values });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const j = await suite.api.waitJob(r.body.job.id);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
}

const ownerFile = (name: string) => join(dataDir(), name, 'files', 'owner.txt');

test('the store schema names the data root; the same template installed twice writes into two folders of its own', async () => {
  await suite.git.addRepo('appdata', 'test/fixtures/repos/appdata', { branch: 'main' });
  await suite.api.addSyncedRepo('appdata', suite.git.url('appdata'));
  const schema = await suite.api.get('/api/store/apps/appdata/keeper');
  assert.equal(schema.status, 200, JSON.stringify(schema.body));
  assert.equal(schema.body.data_root, dataDir());

  // A leaves the data folder out; B sends the DATA_DIR root, as the form used to prefill it.
  await install(A, { message: 'from A' });
  await install(B, { message: 'from B', appdata_dir: schema.body.data_root });
  await until(() => existsSync(ownerFile(A)) && existsSync(ownerFile(B)), 'both apps wrote their file');
  assert.equal(readFileSync(ownerFile(A), 'utf8'), 'from A\n');
  assert.equal(readFileSync(ownerFile(B), 'utf8'), 'from B\n');
  assert.equal(existsSync(join(dataDir(), 'files')), false, 'nothing was written into the DATA_DIR root itself');
});

test("a data folder inside another app's folder is refused, naming that app, before anything is written", async () => {
  const r = await suite.api.post('/api/store/install', {
    repo: 'appdata',
    app: 'keeper',
    name: 'kadetest-keep-c',
    values: { message: 'C', appdata_dir: join(dataDir(), A, 'sub') },
  });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.code, 'forbidden_path');
  assert.equal(r.body.params.reason, 'other_app');
  assert.equal(r.body.params.app, A);
  assert.deepEqual(r.body.fields, ['appdata_dir']);
  assert.match(r.body.detail, new RegExp(`'${A}'`));
  assert.equal(existsSync(join(suite.kade.baseDir, 'stacks', 'kadetest-keep-c')), false);
});

test('GET /api/stacks/<name>/data lists exactly its own folder and its named volume', async () => {
  const r = await suite.api.get(`/api/stacks/${A}/data`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body, { folders: [join(dataDir(), A)], volumes: [`${A}_cache`] });
  assert.deepEqual(await volumes(A), [`${A}_cache`]);
});

test("remove_data=1 removes exactly that list: the other app's data, its volume and DATA_DIR stay", async () => {
  const r = await suite.api.del<{ job: { id: string } }>(`/api/stacks/${A}?remove_data=1`);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const j = await suite.api.waitJob(r.body.job.id);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  assert.ok(j.log.includes(`removed ${join(dataDir(), A)}`), j.log.join('\n'));
  assert.equal(existsSync(join(dataDir(), A)), false, "A's folder is gone");
  assert.deepEqual(await volumes(A), [], "A's volume is gone");

  assert.equal(readFileSync(ownerFile(B), 'utf8'), 'from B\n', "B's data is intact");
  assert.deepEqual(await volumes(B), [`${B}_cache`], "B's volume is intact");
  const b = await suite.api.get(`/api/stacks/${B}`);
  const web = b.body.containers.find((c: { service: string }) => c.service === 'web');
  assert.equal(web.state, 'running');
  assert.equal(await docker(['exec', web.id, 'cat', '/cache/owner.txt']), 'from B');
  assert.ok(existsSync(dataDir()), 'DATA_DIR itself stays');
});
