import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { mergeEnv } from '../../src/server/stacks/store/env-file.ts';
import { ApiClient } from '../helpers/client.ts';
import { useEngineSuite } from '../helpers/engine-suite.ts';
import { HOSTILE_VALUES } from '../helpers/hostile-values.ts';

// Secrets reach the app exactly as typed (issue 12 item 4): `$`, `${...}`, quotes, backslashes (also a
// trailing one) and newlines survive the `.env` file as the real compose reads it, and a real container.
const execFileP = promisify(execFile);
const STACK = 'kadetest-vault';
const suite = useEngineSuite();

test('docker-compose v1 reads every hostile value of a .env that Kade wrote back exactly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-env-'));
  try {
    const env = Object.fromEntries(HOSTILE_VALUES.map((v, i) => [`K${i}`, v]));
    writeFileSync(join(dir, '.env'), mergeEnv('', env, new Set(), 'v1'));
    const environment = Object.fromEntries(Object.keys(env).map((k) => [k, `\${${k}}`]));
    writeFileSync(join(dir, 'docker-compose.yml'), JSON.stringify({ services: { s: { image: 'kade-test/busybox:1', environment } } }));
    const { stdout } = await execFileP('docker-compose', ['--project-directory', dir, '-f', join(dir, 'docker-compose.yml'), 'config'], { cwd: dir });
    const read = (parse(stdout) as { services: { s: { environment: Record<string, string> } } }).services.s.environment;
    // `config` prints a literal `$` as `$$`, so that its output reads back the same.
    const got = Object.fromEntries(Object.keys(env).map((k) => [k, (read[k] ?? '').replace(/\$\$/g, '$')]));
    assert.deepEqual(got, env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const containerEnv = async (): Promise<Record<string, string>> => {
  const id = (await execFileP('docker', ['ps', '-q', '--filter', `label=com.docker.compose.project=${STACK}`])).stdout.trim();
  const { stdout } = await execFileP('docker', ['inspect', '--format', '{{json .Config.Env}}', id]);
  return Object.fromEntries((JSON.parse(stdout) as string[]).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
};

test('hostile secrets installed through the API reach the container byte for byte, and a reconfigure keeps them', async () => {
  await suite.git.addRepo('secrets', 'test/fixtures/repos/secrets', { branch: 'main' });
  await suite.api.addSyncedRepo('secrets', suite.git.url('secrets'));
  const key = 'k$y ${HOME} \'q\' "dq" \\n\nline2 #x\\';
  const password = 'pa$$word${PATH}\\';
  const r = await suite.api.post<{ job: { id: string } }>('/api/store/install', {
    repo: 'secrets',
    app: 'vault',
    name: STACK,
    values: { note: 'n', secret_key: key, db_password: password },
  });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const j = await suite.api.waitJob(r.body.job.id);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  const files = ['.env', 'docker-compose.yml'].map((f) => readFileSync(join(suite.kade.baseDir, 'stacks', STACK, f), 'utf8')).join('\n---\n');
  let env = await containerEnv();
  assert.equal(env.SIGNING_KEY, key, files);
  assert.equal(env.DATABASE_URL, `postgres://app:${password}@db:5432/app`);
  const envFile = readFileSync(join(suite.kade.baseDir, 'stacks', STACK, '.env'), 'utf8');
  assert.ok(!envFile.includes(key), '.env holds the escaped form, one line per value');

  const re = await suite.api.post<{ job: { id: string } }>(`/api/stacks/${STACK}/reconfigure`, { values: { note: 'changed' } });
  assert.equal(re.status, 202, JSON.stringify(re.body));
  const rj = await suite.api.waitJob(re.body.job.id);
  assert.equal(rj.state, 'succeeded', rj.log.join('\n'));
  env = await containerEnv();
  assert.equal(env.NOTE, 'changed');
  assert.equal(env.SIGNING_KEY, key);
  assert.equal(env.DATABASE_URL, `postgres://app:${password}@db:5432/app`);
  const config = await suite.api.get<{ values: Record<string, unknown> }>(`/api/stacks/${STACK}/config`);
  assert.equal(config.body.values.secret_key, key, 'the reconfigure form reads the secret back as typed');
});

test('viewers and operators never read a secret through container inspect: command, labels, health check and environment are masked', async () => {
  const canary = 'CANARY-s3cret-value-42';
  const r = await suite.api.post<{ job: { id: string } }>('/api/store/install', {
    repo: 'secrets',
    app: 'canary',
    name: 'kadetest-canary',
    values: { secret_key: canary },
  });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const j = await suite.api.waitJob(r.body.job.id);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  const id = (await execFileP('docker', ['ps', '-q', '--filter', 'label=com.docker.compose.project=kadetest-canary'])).stdout.trim();
  const raw = (await execFileP('docker', ['inspect', id])).stdout;
  assert.equal(raw.split(canary).length - 1 >= 4, true, 'the engine itself shows the secret in command, label, health check and environment');

  const admin = await suite.api.get(`/api/containers/${id}`);
  assert.ok(JSON.stringify(admin.body).includes(canary), 'admins see the inspect as it is');
  for (const role of ['operator', 'viewer'] as const) {
    assert.equal((await suite.api.post('/api/users', { name: `canary-${role}`, password: 'canary-password-1', role })).status, 201);
    const client = new ApiClient(suite.kade.url);
    await client.loginAs(`canary-${role}`, 'canary-password-1');
    const seen = await client.get<{ Config: { Cmd: string[]; Labels: Record<string, string>; Healthcheck: { Test: string[] } } }>(`/api/containers/${id}`);
    assert.equal(seen.status, 200);
    assert.ok(!JSON.stringify(seen.body).includes(canary), `${role} reads the canary`);
    assert.ok(!JSON.stringify(seen.body).includes('s3cret'), `${role} reads part of the canary`);
    assert.equal(seen.body.Config.Labels['canary.key'], '•••');
    assert.deepEqual(seen.body.Config.Cmd.at(-1), '--key=•••');
  }
});
