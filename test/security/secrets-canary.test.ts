import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// The secrets canary sweep: an app secret, a repo token and a settings secret are planted, then every
// GET route of the OpenAPI document is read as viewer, operator and admin with real ids filled in.
// A canary may appear only where the spec allows it: the admin's credentials view and the admin's
// explicit `.env` reveal. Job logs, the audit log, the file listings and `.svc.json` never hold one.
const execFileP = promisify(execFile);
const APP_CANARY = 'CANARY-app-5ecret-7781';
const TOKEN_CANARY = 'CANARY-repo-t0ken-3312';
const SETTING_CANARY = 'CANARY-registry-t0ken-9902';
const STACK = 'kadetest-canary-sweep';
const PASSWORD = 'canary-password-1';
// Kade's own log at its most detailed level, read by the sweep like any other output.
let serverLog = '';
const logSink = new PassThrough();
logSink.setEncoding('utf8').on('data', (t: string) => {
  serverLog += t;
});
const suite = useEngineSuite({ env: { SVC_LOG_LEVEL: 'trace' }, logTo: logSink });
const as: Record<'viewer' | 'operator', ApiClient> = {} as never;
let ids: Record<string, string>;

/**
 * Admin-only reads that hand out a secret on purpose: the credentials view and the `.env` reveal
 * (both audited), the reconfigure form's stored values (an admin edits secrets there) and the
 * engine's own inspect (SPEC: the engine still shows the values when an inspect is done).
 */
const ALLOWED_FOR_ADMIN = new Set([
  '/api/backups/{id}/download',
  '/api/stacks/{name}/credentials',
  '/api/stacks/{name}/env?reveal=1',
  '/api/stacks/{name}/config',
  '/api/containers/{id}',
]);

// Run from the first test: the engine suite's own hooks must have started git and Kade first.
let planted: Promise<void> | null = null;
const plant = () => (planted ??= doPlant());
async function doPlant(): Promise<void> {
  await suite.git.addRepo('secrets', 'test/fixtures/repos/secrets', { branch: 'main' });
  await suite.api.addSyncedRepo('secrets', suite.git.url('secrets'));
  const tokened = await suite.api.post<{ id: string; job: { id: string } }>('/api/repos', {
    name: 'Tokened',
    url: suite.git.url('basic'),
    branch: 'main',
    subdirectory: 'apps',
    token: TOKEN_CANARY,
  });
  assert.equal(tokened.status, 202, JSON.stringify(tokened.body));
  await suite.api.waitJob(tokened.body.job.id);
  assert.equal((await suite.api.put('/api/settings', { REGISTRY_URL: '127.0.0.1:9', REGISTRY_USER: 'someone', REGISTRY_TOKEN: SETTING_CANARY })).status, 200);
  const r = await suite.api.post<{ job: { id: string } }>('/api/store/install', {
    repo: 'secrets',
    app: 'canary',
    name: STACK,
    values: { secret_key: APP_CANARY },
  });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await suite.api.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  for (const role of ['viewer', 'operator'] as const) {
    assert.equal((await suite.api.post('/api/users', { name: `sweep-${role}`, password: PASSWORD, role })).status, 201);
    as[role] = new ApiClient(suite.kade.url);
    await as[role].loginAs(`sweep-${role}`, PASSWORD);
  }
  const container = (await execFileP('docker', ['ps', '-q', '--filter', `label=com.docker.compose.project=${STACK}`])).stdout.trim();
  // A backup of the app: its listing and metadata are read like everything else (its archive holds .env, admins only).
  const backup = await suite.api.post<{ job: { id: string } }>('/api/backups', { stack: STACK });
  assert.equal(backup.status, 202, JSON.stringify(backup.body));
  assert.equal((await suite.api.waitJob(backup.body.job.id)).state, 'succeeded');
  const backupId = (await suite.api.get<{ id: string }[]>(`/api/backups?stack=${STACK}`)).body[0]?.id ?? 'x';
  const repos = (await suite.api.get<{ id: string }[]>('/api/repos')).body;
  ids = {
    name: STACK,
    id: container,
    repo: 'secrets',
    app: 'canary',
    n: 'bridge',
    service: 'canary',
    user: 'sweep-viewer',
    job: r.body.job.id,
    backup: backupId,
    repoId: repos.find((x) => x.id !== 'secrets')?.id ?? 'tokened',
  };
}

const canaries = [APP_CANARY, TOKEN_CANARY, SETTING_CANARY];
const leaks = (text: string) => canaries.filter((c) => text.includes(c));

function fill(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_m, p: string) => {
    if (p === 'id' && path.startsWith('/api/jobs')) return ids.job as string;
    if (p === 'id' && path.startsWith('/api/repos')) return ids.repoId as string;
    if (p === 'id' && path.startsWith('/api/backups')) return ids.backup as string;
    return encodeURIComponent(ids[p] ?? 'x');
  });
}

test('no GET route shows a canary to a viewer, an operator or (outside the audited reveals) an admin', async () => {
  await plant();
  const doc = (await suite.api.get('/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  const gets = Object.entries(doc.paths)
    .filter(([, methods]) => 'get' in methods)
    .map(([path]) => path);
  assert.ok(gets.length > 25, `only ${gets.length} GET routes`);
  let reads = 0;
  for (const path of [...gets, `/api/jobs/{id}/log`, `/api/stacks/{name}/logs?tail=200`, '/api/audit?limit=500']) {
    const url = fill(path);
    for (const [who, client] of [
      ['viewer', as.viewer],
      ['operator', as.operator],
      ['admin', suite.api],
    ] as const) {
      if (path.includes('follow')) continue;
      const res = await client.get(url);
      reads++;
      const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      if (who === 'admin' && ALLOWED_FOR_ADMIN.has(path)) continue;
      assert.deepEqual(leaks(text), [], `${who} GET ${url} (${res.status})`);
    }
  }
  const reveal = await suite.api.get<{ content: string }>(`/api/stacks/${STACK}/env?reveal=1`);
  assert.ok(reveal.body.content.includes(APP_CANARY), 'the admin reveal shows the secret (the sweep would see a leak)');
  assert.ok(reads > 80);
});

test('the job log, the audit log and the metadata file hold no canary', async () => {
  await plant();
  const log = await suite.api.get<{ lines: string[] }>(`/api/jobs/${ids.job}/log?offset=0`);
  assert.deepEqual(leaks(log.body.lines.join('\n')), []);
  const audit = await suite.api.get('/api/audit?limit=500');
  assert.deepEqual(leaks(JSON.stringify(audit.body)), []);
  const meta = readFileSync(join(suite.kade.baseDir, 'stacks', STACK, '.svc.json'), 'utf8');
  assert.deepEqual(leaks(meta), []);
  const beside = readFileSync(join(suite.kade.baseDir, 'backups', `${ids.backup}.tar.gz.json`), 'utf8');
  assert.deepEqual(leaks(beside), [], "the backup's metadata beside the archive");
  const env = readFileSync(join(suite.kade.baseDir, 'stacks', STACK, '.env'), 'utf8');
  assert.ok(env.includes(APP_CANARY), '.env is where the secret lives');
});

test("Kade's own log, at trace level, holds no canary", async () => {
  await plant();
  assert.ok(serverLog.split('\n').length > 20, `the server logged while the sweep ran (${serverLog.length} bytes)`);
  assert.deepEqual(leaks(serverLog), []);
});
