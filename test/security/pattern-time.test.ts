// Pattern time (issue #23): a template repo's field pattern must never stall Kade. With JavaScript's
// backtracking RegExp, `(a+)+` and a 40-character value held the whole server for 87 s (`/healthz` included),
// and a Runtipi `regex` of `^(x+x+)+y$` 17.5 s at 30 characters. Kade runs in a process of its own here, so
// this test's own timers keep running while Kade's event loop is blocked.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../helpers/client.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { type KadeChild, startKadeChild } from '../helpers/kade-child.ts';

/** Only "answers at all": a server blocked by a backtracking match answers after minutes. */
const ANSWER_WITHIN_MS = 10_000;

const COMPOSE = 'services:\n  app:\n    image: kade-test/busybox:1\n    command: ["sleep", "3600"]\n    environment:\n      CODE: "{{code}}"\n';
const kadeTemplate = (name: string, pattern: string) => ({
  name,
  description: { en: 'x', nl: 'x' },
  version: '1.0.0',
  metadata: { categories: ['developer'] },
  fields: [{ id: 'code', label: 'Code', required: true, pattern }],
});

const TIPI_COMPOSE = 'services:\n  app:\n    image: kade-test/busybox:1\n    command: ["sleep", "3600"]\n    environment:\n      - TIPI_CODE=${TIPI_CODE}\n';
const tipiConfig = (id: string, regex: string) => ({
  name: id,
  id,
  available: true,
  port: 8765,
  tipi_version: 1,
  version: '1.0.0',
  categories: ['utilities'],
  description: 'x',
  short_desc: 'x',
  author: 'kade-test',
  source: 'https://example.invalid/x',
  form_fields: [{ type: 'text', label: 'Code', required: true, regex, env_variable: 'TIPI_CODE' }],
});

function writeApp(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
}

let root: string;
let git: GitServer;
let kade: KadeChild;
let admin: ApiClient;

/** A request that gives up after ANSWER_WITHIN_MS instead of waiting for a blocked server. */
async function timed(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { cookie: admin.cookie };
  if (init.method === 'POST') Object.assign(headers, { 'X-CSRF-Token': admin.csrf, 'content-type': 'application/json' });
  const res = await fetch(kade.url + path, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  });
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, body: type.includes('json') ? await res.json() : await res.text() };
}

/** The install and a concurrent /healthz: both must answer; the install with a 400 naming the field. */
async function installWhileProbing(app: string, repo: string, field: string, value: string): Promise<void> {
  const install = timed('/api/store/install', { method: 'POST', body: { repo, app, name: `inst-${app}`, values: { [field]: value } } });
  // Sent right behind the install, so it waits for whatever the install's check does to the event loop.
  await new Promise((r) => setTimeout(r, 50));
  const health = timed('/healthz');
  const [i, h] = await Promise.allSettled([install, health]);
  assert.equal(h.status, 'fulfilled', `/healthz did not answer within ${ANSWER_WITHIN_MS} ms while ${app} was checked`);
  assert.equal(h.status === 'fulfilled' && h.value.status, 200);
  assert.equal(i.status, 'fulfilled', `the install of ${app} did not answer within ${ANSWER_WITHIN_MS} ms`);
  if (i.status !== 'fulfilled') return;
  assert.equal(i.value.status, 400, JSON.stringify(i.value.body));
  assert.equal(i.value.body.code, 'validation');
  assert.match(i.value.body.detail, new RegExp(`^${field} does not have the form the app expects`));
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'kade-pattern-time-'));
  const kadeRepo = join(root, 'kade-repo');
  writeApp(join(kadeRepo, 'apps', 'slow'), { 'template.json': JSON.stringify(kadeTemplate('Slow', '(a+)+')), 'docker-compose.yml': COMPOSE });
  writeApp(join(kadeRepo, 'apps', 'lookahead'), { 'template.json': JSON.stringify(kadeTemplate('Lookahead', '(?=x)x+')), 'docker-compose.yml': COMPOSE });
  const tipiRepo = join(root, 'tipi-repo');
  writeApp(join(tipiRepo, 'apps', 'tipi-slow'), { 'config.json': JSON.stringify(tipiConfig('tipi-slow', '^(x+x+)+y$')), 'docker-compose.yml': TIPI_COMPOSE });
  writeApp(join(tipiRepo, 'apps', 'tipi-lookahead'), {
    'config.json': JSON.stringify(tipiConfig('tipi-lookahead', '^(?=x)x+$')),
    'docker-compose.yml': TIPI_COMPOSE,
  });
  git = await startGitServer();
  await git.addRepo('kade-apps', kadeRepo, { branch: 'main' });
  await git.addRepo('tipi', tipiRepo, { branch: 'main' });
  kade = await startKadeChild({ stateDir: join(root, 'state'), baseDir: join(root, 'base') });
  admin = new ApiClient(kade.url);
  await admin.loginAs();
  await admin.addSyncedRepo('kade-apps', git.url('kade-apps'));
  await admin.addSyncedRepo('tipi', git.url('tipi'));
});

after(async () => {
  await kade?.kill();
  await git?.close();
  if (root) rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
});

describe('pattern time', () => {
  test('a Kade template with pattern (a+)+: an install with 40 a\'s and "!" answers 400 naming the field, /healthz answers meanwhile', async () => {
    await installWhileProbing('slow', 'kade-apps', 'code', `${'a'.repeat(40)}!`);
  });

  test("a Runtipi app with regex ^(x+x+)+y$ is imported; an install with 30 x's answers 400 naming the field, /healthz answers meanwhile", async () => {
    await installWhileProbing('tipi-slow', 'tipi', 'tipi_code', 'x'.repeat(30));
  });

  test('a lookahead is refused at import, with the reason in the repo report: a Kade template and a Runtipi app', async () => {
    const kadeRepo = await admin.get<{ import: { refused: { app: string; reason: string }[] } }>('/api/repos/kade-apps');
    assert.equal(kadeRepo.status, 200);
    const k = kadeRepo.body.import.refused.find((r) => r.app === 'lookahead');
    assert.ok(k, JSON.stringify(kadeRepo.body.import));
    assert.match(k.reason, /the pattern of field 'code' cannot be used: invalid or unsupported Perl syntax: `\(\?=`/);
    const tipiRepo = await admin.get<{ import: { imported: number; refused: { app: string; reason: string }[] } }>('/api/repos/tipi');
    assert.equal(tipiRepo.status, 200);
    assert.equal(tipiRepo.body.import.imported, 1, JSON.stringify(tipiRepo.body.import));
    assert.deepEqual(
      tipiRepo.body.import.refused.map((r) => r.app),
      ['tipi-lookahead'],
    );
    assert.match(tipiRepo.body.import.refused[0]?.reason ?? '', /^form field TIPI_CODE has the regex "\^\(\?=x\)x\+\$", which Kade cannot check: .*`\(\?=`/);
    // Neither is offered for install.
    for (const [repo, app] of [
      ['kade-apps', 'lookahead'],
      ['tipi', 'tipi-lookahead'],
    ]) {
      const r = await timed('/api/store/install', { method: 'POST', body: { repo, app, name: `inst-${app}`, values: {} } });
      assert.equal(r.status, 404, `${app}: ${JSON.stringify(r.body)}`);
    }
  });
});
