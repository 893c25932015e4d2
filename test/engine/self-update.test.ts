// Kade updates itself (issue #16 item 4): Kade's image from this work tree in a local registry under
// three tags, a Kade started from it with compose (project kadetest-selfupdate, host network so it
// reaches the registry on 127.0.0.1), then through Kade's API: the newer tag is offered, the update
// recreates Kade on it through the helper container, the rollback goes back, and a new tag whose server
// never answers /healthz is rolled back by the helper on its own. A Kade from a locally built image says
// why it cannot update.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { parseDocument } from 'yaml';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine, TEST_LABEL } from '../helpers/engine.ts';
import { kadeImage } from '../helpers/kade-image.ts';
import { type Registry, startRegistry } from '../helpers/registry.ts';

const execFileP = promisify(execFile);
const PROJECT = 'kadetest-selfupdate';
const HELPER = `${PROJECT}-self-update`;

async function run(file: string, args: string[], opts: { cwd?: string; input?: string; timeout?: number } = {}): Promise<string> {
  const child = execFileP(file, args, { cwd: opts.cwd, timeout: opts.timeout ?? 300_000, maxBuffer: 16 << 20 });
  if (opts.input !== undefined) child.child.stdin?.end(opts.input);
  return (await child).stdout.trim();
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? ok(a.port) : fail(new Error('no port'))));
    });
  });
}

/** `FROM base` with another VERSION (and optionally another command), built from stdin: no context to send. */
async function variant(base: string, tag: string, version: string, cmd?: string[]): Promise<void> {
  const lines = [`FROM ${base}`, `RUN printf '%s\\n' '${version}' > /app/VERSION`, ...(cmd ? [`CMD ${JSON.stringify(cmd)}`] : [])];
  await run('docker', ['build', '-q', '-t', tag, '-'], { input: `${lines.join('\n')}\n` });
  await run('docker', ['push', tag]);
}

let registry: Registry | undefined;
let local = '';
let image = '';
let dir = '';
let port = 0;
const api = () => new ApiClient(`http://127.0.0.1:${port}`);
const tagged: string[] = [];

async function health(): Promise<string | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
    return r.ok ? ((await r.json()) as { version: string }).version : null;
  } catch {
    return null;
  }
}

/** Waits until /healthz answers `version` (the helper recreates Kade meanwhile); bounded by the helper's own bound and then some. */
async function waitForVersion(version: string, seconds = 150): Promise<void> {
  let seen: string | null = null;
  for (let i = 0; i < seconds; i++) {
    seen = await health();
    if (seen === version) return;
    await sleep(1000);
  }
  const logs = await run('docker', ['logs', '--tail', '40', HELPER]).catch(() => '(helper gone)');
  assert.fail(`Kade did not come back as ${version} (last answer ${seen}); helper: ${logs}`);
}

/** GET /api/update once the helper has written its result (it does so a moment after the new Kade answers). */
async function settled(admin: ApiClient) {
  for (let i = 0; i < 60; i++) {
    const s = await admin.get('/api/update');
    if (s.status === 200 && s.body.last?.state !== 'running') return s;
    await sleep(1000);
  }
  assert.fail('the helper left no result');
}

const envTag = async () => /^SVC_TAG="?([^"\n]*)"?$/m.exec(await readFile(join(dir, '.env'), 'utf8'))?.[1];

async function compose(args: string[]): Promise<string> {
  return run('docker-compose', ['-p', PROJECT, '-f', 'compose.yaml', '-f', 'compose.test.yaml', ...args], { cwd: dir });
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  local = await kadeImage();
  registry = await startRegistry();
  image = `${registry.host}/kadetest/kade`;
  for (const tag of ['v0.1.00', 'v0.1.01']) {
    tagged.push(`${image}:${tag}`);
    await variant(local, `${image}:${tag}`, tag);
  }
  // The update must pull: the engine has only what Kade runs now.
  await run('docker', ['rmi', `${image}:v0.1.01`]);

  dir = await mkdtemp(join(tmpdir(), 'kadetest-selfupdate-'));
  port = await freePort();
  const base = join(dir, 'base');
  await mkdir(base);
  // The repo's compose file without its published port: the override below puts Kade on the host network (so it
  // reaches the registry on 127.0.0.1, which in a bridge container would be its own loopback), and compose v1
  // refuses published ports there.
  const file = parseDocument(await readFile(resolve('compose.yaml'), 'utf8'));
  assert.ok(file.hasIn(['services', 'kade', 'ports']), 'compose.yaml publishes a port');
  file.deleteIn(['services', 'kade', 'ports']);
  await writeFile(join(dir, 'compose.yaml'), file.toString());
  await writeFile(
    join(dir, '.env'),
    [`SVC_IMAGE=${image}`, 'SVC_TAG=v0.1.00', `SVC_PORT=${port}`, 'SVC_BIND=127.0.0.1', 'SVC_UID=0', 'SVC_GID=0', `BASE_DIR=${base}`, ''].join('\n'),
    { mode: 0o600 },
  );
  await writeFile(
    join(dir, 'compose.test.yaml'),
    [
      'services:',
      '  kade:',
      '    network_mode: host',
      '    labels:',
      `      ${TEST_LABEL}: "1"`,
      '    environment:',
      `      SVC_PORT: "${port}"`,
      '      SVC_BIND: 127.0.0.1',
      '      SVC_UPDATE_HEALTH_SECONDS: "20"',
      '',
    ].join('\n'),
  );
  await compose(['up', '-d']);
  await waitForVersion('v0.1.00', 90);
});

after(async () => {
  await run('docker', ['rm', '--force', HELPER]).catch(() => undefined);
  if (dir) await compose(['down', '--volumes', '--remove-orphans']).catch(() => undefined);
  for (const t of tagged) await run('docker', ['rmi', '--force', t]).catch(() => undefined);
  await registry?.close();
  await cleanupLabelled();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('update to the newer tag, roll back, and a new version that never answers is rolled back by the helper', async () => {
  const admin = api();
  await admin.loginAs();
  let s = await admin.get('/api/update?force=1');
  assert.equal(s.status, 200, JSON.stringify(s.body));
  assert.deepEqual(
    {
      current: s.body.current,
      latest: s.body.latest,
      available: s.body.available,
      possible: s.body.possible,
      reason: s.body.reason,
      previous: s.body.previous,
    },
    { current: 'v0.1.00', latest: 'v0.1.01', available: true, possible: true, reason: null, previous: null },
    JSON.stringify(s.body),
  );
  assert.equal(s.body.image, `${image}:v0.1.00`);

  const up = await admin.post('/api/update');
  assert.equal(up.status, 202, JSON.stringify(up.body));
  const job = await admin.waitJob(up.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  assert.ok(
    job.log.some((l) => l.includes(`pulling ${image}:v0.1.01`)),
    job.log.join('\n'),
  );
  await waitForVersion('v0.1.01');
  assert.equal(await envTag(), 'v0.1.01');

  // The session lives in SVC_DATA, which the new container has too.
  s = await settled(admin);
  assert.equal(s.status, 200, JSON.stringify(s.body));
  assert.equal(s.body.current, 'v0.1.01');
  assert.equal(s.body.previous, 'v0.1.00');
  assert.equal(s.body.available, false);
  assert.equal(s.body.last?.state, 'done', JSON.stringify(s.body.last));

  const back = await admin.post('/api/update/rollback');
  assert.equal(back.status, 202, JSON.stringify(back.body));
  assert.equal((await admin.waitJob(back.body.job.id)).state, 'succeeded');
  await waitForVersion('v0.1.00');
  assert.equal(await envTag(), 'v0.1.00');
  s = await settled(admin);
  assert.equal(s.body.previous, null);
  assert.deepEqual([s.body.last?.action, s.body.last?.state, s.body.last?.to], ['rollback', 'done', 'v0.1.00']);

  // v0.1.02 starts, but its server never runs: /healthz stays silent, so the helper goes back.
  tagged.push(`${image}:v0.1.02`);
  await variant(local, `${image}:v0.1.02`, 'v0.1.02', ['sleep', '3600']);
  const broken = await admin.post('/api/update');
  assert.equal(broken.status, 202, JSON.stringify(broken.body));
  assert.equal((await admin.waitJob(broken.body.job.id)).state, 'succeeded');
  // Away while v0.1.02 is tried, then back on v0.1.00.
  for (let i = 0; i < 60 && (await health()) === 'v0.1.00'; i++) await sleep(500);
  await waitForVersion('v0.1.00');
  s = await settled(admin);
  assert.equal(s.body.last?.state, 'rolled_back', JSON.stringify(s.body.last));
  assert.equal(s.body.last?.to, 'v0.1.02');
  assert.match(s.body.last?.message ?? '', /did not come up.*rolled back to v0\.1\.00/);
  assert.equal(await envTag(), 'v0.1.00');
});

test('a Kade from a locally built image cannot update itself and says why', async () => {
  const localPort = await freePort();
  const name = 'kadetest-selfupdate-local';
  await run('docker', [
    'run',
    '-d',
    '--name',
    name,
    '--label',
    `${TEST_LABEL}=1`,
    '--init',
    '--network',
    'host',
    '-v',
    '/var/run/docker.sock:/var/run/docker.sock',
    '-e',
    `SVC_PORT=${localPort}`,
    '-e',
    'SVC_BIND=127.0.0.1',
    '-e',
    'SVC_UID=0',
    local,
  ]);
  try {
    const client = new ApiClient(`http://127.0.0.1:${localPort}`);
    for (let i = 0; i < 90; i++) {
      if ((await fetch(`http://127.0.0.1:${localPort}/healthz`).catch(() => null))?.ok) break;
      await sleep(1000);
    }
    await client.loginAs();
    const s = await client.get('/api/update');
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.equal(s.body.possible, false);
    assert.equal(s.body.reason_code, 'not_registry_image');
    assert.match(s.body.reason, /locally built image/);
    const refused = await client.post('/api/update');
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
  } finally {
    await run('docker', ['rm', '--force', name]).catch(() => undefined);
  }
});
