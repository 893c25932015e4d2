import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { KADE_TEST_REPO, kadeImage } from '../helpers/kade-image.ts';

// compose.yaml, the way install.sh uses it: an install folder with the file and a .env, a registry-style
// image through SVC_IMAGE/SVC_TAG (no build), compose of this machine.
const execFileP = promisify(execFile);
const run = async (cmd: string, args: string[], cwd?: string) =>
  (await execFileP(cmd, args, { timeout: 180_000, maxBuffer: 16 << 20, ...(cwd ? { cwd } : {}) })).stdout.trim();
const PROJECT = 'kadetest-compose';

let dir: string;
let base: string;
let port: number;
let compose: string[];

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const p = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return p;
}

async function composeCommand(): Promise<string[]> {
  try {
    await run('docker', ['compose', 'version']);
    return ['docker', 'compose'];
  } catch {
    return ['docker-compose'];
  }
}

const dc = (...args: string[]) => run(compose[0] as string, [...compose.slice(1), '-p', PROJECT, ...args], dir);

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  const image = await kadeImage();
  compose = await composeCommand();
  dir = mkdtempSync(join(tmpdir(), 'kadetest-compose-dir-'));
  base = mkdtempSync(join(tmpdir(), 'kadetest-compose-base-'));
  port = await freePort();
  copyFileSync('compose.yaml', join(dir, 'compose.yaml'));
  writeFileSync(
    join(dir, '.env'),
    [
      `SVC_IMAGE=${KADE_TEST_REPO}`,
      `SVC_TAG=${image.slice(KADE_TEST_REPO.length + 1)}`,
      `BASE_DIR=${base}`,
      'SVC_UID=1234',
      'SVC_GID=1234',
      'SVC_BIND=127.0.0.1',
      `SVC_PORT=${port}`,
      'TZ=Europe/Amsterdam',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  await dc('up', '-d');
});

after(async () => {
  if (dir) await dc('down', '--volumes').catch(() => '');
  await cleanupLabelled();
  for (const d of [dir, base]) if (d) rmSync(d, { recursive: true, force: true });
});

async function containerId(): Promise<string> {
  return run('docker', ['ps', '--quiet', '--filter', `label=com.docker.compose.project=${PROJECT}`]);
}

test('Kade answers on SVC_BIND:SVC_PORT and its health check reports healthy', async () => {
  const id = await containerId();
  assert.ok(id, 'the service container runs');
  const deadline = Date.now() + 150_000;
  let health = '';
  while (Date.now() < deadline) {
    health = await run('docker', ['inspect', '--format', '{{.State.Health.Status}}', id]);
    if (health === 'healthy' || health === 'unhealthy') break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  assert.equal(health, 'healthy', await run('docker', ['logs', '--tail', '40', id]));
  const r = await fetch(`http://127.0.0.1:${port}/healthz`);
  assert.equal(r.status, 200);
  assert.match(((await r.json()) as { version: string }).version, /^v\d+\.\d\.\d{2}/);
});

test('BASE_DIR is the same path inside, /data is the project volume, .env reaches Kade, init and restart policy are set', async () => {
  const id = await containerId();
  const info = JSON.parse(await run('docker', ['inspect', id]))[0] as {
    Mounts: { Type: string; Source: string; Destination: string; Name?: string }[];
    HostConfig: { Init: boolean; RestartPolicy: { Name: string } };
    Config: { Env: string[]; Image: string };
  };
  const mount = (dest: string) => info.Mounts.find((m) => m.Destination === dest);
  assert.equal(mount(base)?.Source, base);
  assert.equal(mount('/data')?.Type, 'volume');
  assert.equal(mount('/data')?.Name, `${PROJECT}_data`);
  assert.equal(mount('/var/run/docker.sock')?.Source, '/var/run/docker.sock');
  assert.equal(info.HostConfig.Init, true);
  assert.equal(info.HostConfig.RestartPolicy.Name, 'unless-stopped');
  assert.ok(info.Config.Image.startsWith(`${KADE_TEST_REPO}:`));
  const env = new Set(info.Config.Env);
  for (const e of [`BASE_DIR=${base}`, 'SVC_UID=1234', 'SVC_DATA=/data', 'SVC_BIND=0.0.0.0', 'SVC_PORT=8420', 'TZ=Europe/Amsterdam']) {
    assert.ok(env.has(e), `${e} in ${[...env].join(' ')}`);
  }
  // The entrypoint made the stacks folder for the account of .env, on the host's side of the mount.
  assert.equal(statSync(join(base, 'stacks')).uid, 1234);
});
