import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { useEngineSuite } from '../helpers/engine-suite.ts';
import { type Registry, startRegistry } from '../helpers/registry.ts';

const execFileP = promisify(execFile);
const suite = useEngineSuite();
const V1 = 'kade-test/busybox:1';
const V2 = 'kade-test/busybox:2';
const tagged: string[] = [];

async function docker(args: string[], env?: Record<string, string>, input?: string): Promise<string> {
  const child = execFileP('docker', args, { timeout: 120_000, ...(env ? { env: { ...process.env, ...env } } : {}) });
  if (input !== undefined) child.child.stdin?.end(input);
  return (await child).stdout.trim();
}

/** Pushes a local image as `ref` (with a private client config when given) and removes the local tag again. */
async function pushAs(source: string, ref: string, env?: Record<string, string>): Promise<void> {
  await docker(['tag', source, ref]);
  tagged.push(ref);
  await docker(['push', ref], env);
  await docker(['rmi', ref]);
}

const imageId = (ref: string) => docker(['image', 'inspect', '--format', '{{.Id}}', ref]);

/** Hand-writes a stack folder under LIBRARY_DIR, as an app Kade manages. */
function writeStack(name: string, image: string): void {
  const dir = join(suite.kade.baseDir, 'stacks', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    `services:\n  app:\n    image: ${image}\n    init: true\n    command: ["sleep", "3600"]\n    labels:\n      kade.test: "1"\n`,
  );
}

async function runJob(name: string, op: string): Promise<string[]> {
  const r = await suite.api.post(`/api/stacks/${name}/${op}`);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await suite.api.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  return job.log;
}

async function check(name: string) {
  const r = await suite.api.post(`/api/stacks/${name}/update-check`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { update: string; images: { image: string; state: string; reason: string; cached: boolean }[] };
}

const listed = async (name: string) => (await suite.api.get('/api/stacks')).body.find((s: { name: string }) => s.name === name);

async function runningImageId(name: string): Promise<string> {
  const d = await suite.api.get(`/api/stacks/${name}`);
  const id = d.body.containers[0]?.id as string;
  return docker(['inspect', '--format', '{{.Image}}', id]);
}

after(async () => {
  for (const ref of tagged) await docker(['rmi', '--force', ref]).catch(() => undefined);
  // Pulls and pushes leave `repo@digest` references on the kade-test images; only ours (loopback kadetest/) go.
  const refs = (await docker(['images', '--digests', '--format', '{{.Repository}}@{{.Digest}}'])).split('\n');
  for (const r of refs.filter((x) => /^127\.0\.0\.1:\d+\/kadetest\/.*@sha256:/.test(x))) await docker(['rmi', r]).catch(() => undefined);
});

test('a registry image: current, then update after a push, update job, current again; stopped registry is unknown', async (t) => {
  const registry: Registry = await startRegistry();
  t.after(() => registry.close());
  const ref = `${registry.host}/kadetest/app:latest`;
  await pushAs(V1, ref);
  const name = 'kadetest-upd-reg';
  writeStack(name, ref);
  await suite.api.acceptFiles(name);
  await runJob(name, 'start'); // compose pulls the missing image, so its RepoDigests exist

  assert.equal((await listed(name)).update, 'unknown', 'not checked yet');
  let c = await check(name);
  assert.equal(c.update, 'current', JSON.stringify(c));
  assert.deepEqual(
    c.images.map((i) => [i.image, i.reason, i.cached]),
    [[ref, 'compared', true]],
  );
  assert.equal((await listed(name)).update, 'current');

  await pushAs(V2, ref);
  c = await check(name);
  assert.equal(c.update, 'update', JSON.stringify(c));
  assert.equal((await listed(name)).update, 'update');
  assert.equal((await suite.api.get(`/api/stacks/${name}`)).body.update, 'update');

  const log = await runJob(name, 'update');
  assert.ok(
    log.some((l) => l.startsWith(`backing up '${name}' to `)),
    `the update backs the app up first: ${log.join('\n')}`,
  );
  const backups = await suite.api.get<{ stack: string }[]>(`/api/backups?stack=${name}`);
  assert.equal(backups.body.length, 1, JSON.stringify(backups.body));
  assert.ok(
    log.some((l) => l === 'checked again: up to date'),
    `the update asks the registry again: ${log.join('\n')}`,
  );
  assert.equal((await listed(name)).update, 'current', 'the old result is replaced by the new one');
  assert.equal(await runningImageId(name), await imageId(V2), 'the container runs the new image');
  assert.equal((await check(name)).update, 'current');

  const audit = await suite.api.get('/api/audit?action=update');
  assert.ok(JSON.stringify(audit.body).includes(name), 'stack.updated reached the audit log');

  await registry.close();
  c = await check(name);
  assert.equal(c.update, 'unknown');
  assert.deepEqual(
    c.images.map((i) => [i.reason, i.cached]),
    [['registry', false]],
  );
  const kept = await listed(name);
  assert.equal(kept.update, 'current', 'a registry that cannot be asked does not replace the last known result');
  assert.ok(kept.update_checked_at, 'which is shown with its time');
});

test('a locally built image has no RepoDigests and stays unknown', async () => {
  const name = 'kadetest-upd-local';
  writeStack(name, V1);
  await suite.api.acceptFiles(name);
  await runJob(name, 'start');
  const c = await check(name);
  assert.equal(c.update, 'unknown');
  assert.deepEqual(
    c.images.map((i) => i.reason),
    ['local_build'],
  );
});

test('a registry with an account: the update job pulls with the settings credentials, checks use them too', async (t) => {
  const account = { user: 'kade', password: 'registry-S3cret' };
  const registry = await startRegistry({ htpasswd: account });
  t.after(() => registry.close());
  const config = await mkdtemp(join(tmpdir(), 'kade-test-docker-'));
  t.after(() => rm(config, { recursive: true, force: true }));
  const env = { DOCKER_CONFIG: config };
  await docker(['login', '--username', account.user, '--password-stdin', registry.host], env, account.password);
  const ref = `${registry.host}/kadetest/private:latest`;
  await pushAs(V1, ref, env);

  const name = 'kadetest-upd-auth';
  writeStack(name, ref);
  await suite.api.acceptFiles(name);
  const put = await suite.api.put('/api/settings', { REGISTRY_URL: registry.host, REGISTRY_USER: account.user, REGISTRY_TOKEN: account.password });
  assert.equal(put.status, 200, JSON.stringify(put.body));

  const first = await runJob(name, 'update'); // nothing local yet: the pull needs the account
  assert.ok(!first.join('\n').includes(account.password), 'the token never reaches the job log');
  assert.equal(await runningImageId(name), await imageId(V1));
  assert.equal((await check(name)).update, 'current');

  await pushAs(V2, ref, env);
  assert.equal((await check(name)).update, 'update');
  await runJob(name, 'update');
  assert.equal(await runningImageId(name), await imageId(V2));
  assert.equal((await check(name)).update, 'current');
});
