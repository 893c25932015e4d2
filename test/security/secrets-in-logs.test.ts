import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// Secrets in logs: an app that prints its environment (and a secret inside other text) must not hand
// its secrets to a viewer or an operator through the container log or the app log, read at once or
// followed. Admins read the log as the app wrote it. The app writes its token in two halves half a
// second apart, so a followed log also meets a secret that arrives in two pieces.
const execFileP = promisify(execFile);
const TOKEN = 'CANARY-log-t0ken-5521';
const DB_PASSWORD = 'CANARY-db-pw-8830';
const SECRETS = [TOKEN, DB_PASSWORD];
const MARKER = 'kade-log-marker';
const STACK = 'kadetest-secrets-in-logs';
const PASSWORD = 'logs-password-1';
const suite = useEngineSuite();
const as: Record<'viewer' | 'operator', ApiClient> = {} as never;
let container = '';

let installed: Promise<void> | null = null;
const install = () => (installed ??= doInstall());
async function doInstall(): Promise<void> {
  await suite.git.addRepo('printenv', 'test/fixtures/repos/printenv', { branch: 'main' });
  await suite.api.addSyncedRepo('printenv', suite.git.url('printenv'));
  const r = await suite.api.post<{ job: { id: string } }>('/api/store/install', {
    repo: 'printenv',
    app: 'printenv',
    name: STACK,
    values: { note: 'n', api_token: TOKEN, db_password: DB_PASSWORD },
  });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await suite.api.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  for (const role of ['viewer', 'operator'] as const) {
    assert.equal((await suite.api.post('/api/users', { name: `logs-${role}`, password: PASSWORD, role })).status, 201);
    as[role] = new ApiClient(suite.kade.url);
    await as[role].loginAs(`logs-${role}`, PASSWORD);
  }
  container = (await execFileP('docker', ['ps', '-q', '--filter', `label=com.docker.compose.project=${STACK}`])).stdout.trim();
  assert.ok(container, 'the app runs');
  // Until the app has printed its environment and a whole tick, there is nothing to leak yet.
  const deadline = Date.now() + 30_000;
  while (!(await suite.api.get<string>(`/api/containers/${container}/logs?tail=500`)).body.includes('tick-end')) {
    assert.ok(Date.now() < deadline, 'the app printed no tick within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const leaks = (text: string) => SECRETS.filter((s) => text.includes(s));

/** The `line` events of a followed log until `ticks` whole ticks arrived (or 15 s passed). */
async function follow(client: ApiClient, path: string, ticks: number): Promise<string> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 15_000);
  let text = '';
  try {
    const res = await fetch(`${client.base}${path}`, { headers: { cookie: client.cookie }, signal: ac.signal });
    assert.equal(res.status, 200, path);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const dec = new TextDecoder();
    while ((text.match(/tick-end/g) ?? []).length < ticks) {
      const { value, done } = await reader.read();
      if (done) break;
      text += dec.decode(value, { stream: true });
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return text;
}

const paths = () => ({
  container: `/api/containers/${container}/logs?tail=500`,
  app: `/api/stacks/${STACK}/logs?tail=500`,
});

test('viewers and operators read the logs with every secret masked: the environment, a secret inside other text', async () => {
  await install();
  for (const role of ['viewer', 'operator'] as const) {
    for (const [what, path] of Object.entries(paths())) {
      const r = await as[role].get<string>(path);
      assert.equal(r.status, 200, `${role} ${what}: ${r.body}`);
      assert.deepEqual(leaks(r.body), [], `${role} reads the ${what} log`);
      assert.ok(r.body.includes(MARKER), `${role} still reads the rest of the ${what} log:\n${r.body}`);
      assert.match(r.body, /API_TOKEN=•••/, `${role} ${what}: the variable is there, its value masked`);
      assert.match(r.body, /password tail: •••@db:5432\/app/, `${role} ${what}: the password inside other text is masked`);
      assert.match(r.body, /tick ••• tick-end/, `${role} ${what}: the token written in two halves is masked`);
    }
  }
});

test('followed logs mask the secrets too, also the token the app writes in two pieces', async () => {
  await install();
  for (const role of ['viewer', 'operator'] as const) {
    for (const [what, path] of Object.entries(paths())) {
      // The whole log so far (the environment), then two ticks written while the log is followed.
      const ticks = (await as[role].get<string>(path)).body.split('tick-end').length + 1;
      const text = await follow(as[role], `${path}&follow=1`, ticks);
      assert.ok((text.match(/tick-end/g) ?? []).length >= ticks, `${role} ${what}: the followed log went on:\n${text}`);
      assert.deepEqual(leaks(text), [], `${role} follows the ${what} log`);
      assert.ok(text.includes(MARKER), `${role} ${what}: the rest of the log is there`);
      assert.match(text, /API_TOKEN=•••/);
      assert.match(text, /tick ••• tick-end/);
    }
  }
});

test('admins read the logs as the app wrote them, plain and followed', async () => {
  await install();
  for (const [what, path] of Object.entries(paths())) {
    const r = await suite.api.get<string>(path);
    assert.equal(r.status, 200);
    assert.deepEqual(leaks(r.body), SECRETS, `the admin reads the ${what} log unmasked`);
    assert.ok(r.body.includes(`tick ${TOKEN} tick-end`), what);
    const text = await follow(suite.api, `${path}&follow=1`, r.body.split('tick-end').length + 1);
    assert.deepEqual(leaks(text), SECRETS, `the admin follows the ${what} log unmasked`);
  }
});
