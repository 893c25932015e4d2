import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine, TEST_LABEL } from '../helpers/engine.ts';
import { kadeImage } from '../helpers/kade-image.ts';

// Kade's image started the way compose.yaml starts it (socket, BASE_DIR at the same path, a volume
// for /data, init): the entrypoint prepares the folders and drops to SVC_UID:SVC_GID with only three
// capabilities, and Kade still works through the socket.
const execFileP = promisify(execFile);
const docker = async (args: string[], timeout = 120_000) => (await execFileP('docker', args, { timeout, maxBuffer: 16 << 20 })).stdout.trim();
const SOCKET = '/var/run/docker.sock';
const APP_OWNER = 4321;

/** Linux capability numbers (linux/capability.h) up to the last one the kernels of today know. */
const CAP_NAMES = [
  'chown',
  'dac_override',
  'dac_read_search',
  'fowner',
  'fsetid',
  'kill',
  'setgid',
  'setuid',
  'setpcap',
  'linux_immutable',
  'net_bind_service',
  'net_broadcast',
  'net_admin',
  'net_raw',
  'ipc_lock',
  'ipc_owner',
  'sys_module',
  'sys_rawio',
  'sys_chroot',
  'sys_ptrace',
  'sys_pacct',
  'sys_admin',
  'sys_boot',
  'sys_nice',
  'sys_resource',
  'sys_time',
  'sys_tty_config',
  'mknod',
  'lease',
  'audit_write',
  'audit_control',
  'setfcap',
  'mac_override',
  'mac_admin',
  'syslog',
  'wake_alarm',
  'block_suspend',
  'audit_read',
  'perfmon',
  'bpf',
  'checkpoint_restore',
];

/** The names of the capabilities set in a /proc status mask such as `00000000a80425fb`. */
function capNames(hex: string): string[] {
  const mask = BigInt(`0x${hex}`);
  return CAP_NAMES.filter((_, bit) => (mask >> BigInt(bit)) & 1n);
}

interface Started {
  name: string;
  url: string;
  base: string;
  volume: string;
}

const started: Started[] = [];
let image: string;

async function startKade(name: string, uid: number, prepare: (base: string) => void = () => undefined): Promise<Started> {
  const base = mkdtempSync(join(tmpdir(), `${name}-`));
  prepare(base);
  const volume = `${name}-data`;
  await docker(['volume', 'create', '--label', `${TEST_LABEL}=1`, volume]);
  const s: Started = { name, url: '', base, volume };
  started.push(s);
  await docker([
    'run',
    '--detach',
    '--name',
    name,
    '--label',
    `${TEST_LABEL}=1`,
    '--init',
    '--env',
    `SVC_UID=${uid}`,
    '--env',
    `SVC_GID=${uid}`,
    '--env',
    `BASE_DIR=${base}`,
    '--volume',
    `${SOCKET}:${SOCKET}`,
    '--volume',
    `${base}:${base}`,
    '--volume',
    `${volume}:/data`,
    '--publish',
    '127.0.0.1::8420',
    image,
  ]);
  await waitHealthy(s);
  return s;
}

/** The published port is picked by the engine anew at every start of the container. */
async function publishedUrl(name: string): Promise<string> {
  const port = (await docker(['port', name, '8420/tcp'])).split('\n')[0]?.split(':').at(-1);
  return `http://127.0.0.1:${port}`;
}

async function waitHealthy(s: Started): Promise<void> {
  s.url = await publishedUrl(s.name);
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    try {
      // A timer of our own: AbortSignal.timeout's does not keep the process alive while the published port
      // holds the connection without an answer (the container's side is not listening yet).
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), 2000);
      const r = await fetch(`${s.url}/healthz`, { signal: ac.signal }).finally(() => clearTimeout(timer));
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    const state = await docker(['inspect', '--format', '{{.State.Status}}', s.name]);
    if (state !== 'running') break;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${s.name} did not answer /healthz:\n${await docker(['logs', '--tail', '60', s.name]).catch((e: Error) => e.message)}`);
}

/** The status lines of Kade's node process in the container (the child of the init process). */
async function nodeStatus(name: string): Promise<Record<string, string>> {
  const script = 'for d in /proc/[0-9]*; do if [ "$(cat $d/comm)" = node ] && grep -q "^PPid:[[:space:]]*1$" $d/status; then cat $d/status; fi; done';
  const out = await docker(['exec', name, 'sh', '-c', script]);
  const status: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const m = /^(\w+):\s*(.*)$/.exec(line);
    if (m?.[1] && m[2] !== undefined) status[m[1]] = m[2].trim();
  }
  assert.ok(status.Uid, `no node process below the init process:\n${out}`);
  return status;
}

const ownerOf = (path: string) => {
  const st = statSync(path);
  return `${st.uid}:${st.gid}`;
};

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  image = await kadeImage();
});

after(async () => {
  for (const s of started) {
    await docker(['rm', '--force', '--volumes', s.name]).catch(() => '');
    await docker(['volume', 'rm', '--force', s.volume]).catch(() => '');
    rmSync(s.base, { recursive: true, force: true });
  }
  await cleanupLabelled();
});

/** Files of an app from before: its data folder and a relative bind mount in its stack folder, owned by the app's user. */
function appFiles(base: string) {
  const appData = join(base, 'appdata', 'somedb');
  const stackData = join(base, 'stacks', 'someapp', 'data');
  return { appData, stackData, dbFile: join(appData, 'db.file') };
}

function prepareApp(base: string): void {
  const f = appFiles(base);
  mkdirSync(f.appData, { recursive: true });
  mkdirSync(f.stackData, { recursive: true });
  writeFileSync(f.dbFile, 'data');
  for (const p of [f.dbFile, f.appData, f.stackData]) chownSync(p, APP_OWNER, APP_OWNER);
  chmodSync(f.appData, 0o700);
  // A backup left by a Kade that ran as root: Kade's own file, so it becomes Kade's account's.
  mkdirSync(join(base, 'backups'));
  writeFileSync(join(base, 'backups', 'old.tar.gz'), 'x');
}

function assertAppUntouched(base: string): void {
  const f = appFiles(base);
  assert.equal(ownerOf(f.appData), `${APP_OWNER}:${APP_OWNER}`);
  assert.equal(statSync(f.appData).mode & 0o777, 0o700);
  assert.equal(ownerOf(f.dbFile), `${APP_OWNER}:${APP_OWNER}`);
  assert.equal(ownerOf(f.stackData), `${APP_OWNER}:${APP_OWNER}`);
}

describe('the entrypoint with SVC_UID=1234', () => {
  let kade: Started;
  before(async () => {
    kade = await startKade('kadetest-entrypoint', 1234, prepareApp);
  });

  test('Kade runs as 1234:1234 with exactly chown, dac_override and fowner, and the socket group among its groups', async () => {
    const status = await nodeStatus(kade.name);
    assert.deepEqual(status.Uid?.split(/\s+/), ['1234', '1234', '1234', '1234']);
    assert.deepEqual(status.Gid?.split(/\s+/), ['1234', '1234', '1234', '1234']);
    const three = ['chown', 'dac_override', 'fowner'];
    for (const set of ['CapEff', 'CapPrm', 'CapBnd', 'CapAmb']) {
      assert.deepEqual(capNames(status[set] ?? ''), three, `${set} ${status[set]}`);
    }
    const socketGid = String(statSync(SOCKET).gid);
    assert.ok(status.Groups?.split(/\s+/).includes(socketGid), `groups '${status.Groups}' lack the socket's group ${socketGid}`);
  });

  test('/healthz answers, and a logged-in admin lists the containers through the socket, with this one as Kade’s own', async () => {
    const health = await fetch(`${kade.url}/healthz`);
    assert.equal(health.status, 200);
    const api = new ApiClient(kade.url);
    await api.loginAs();
    const r = await api.get<{ name: string; own: boolean }[]>('/api/containers');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(
      r.body.filter((c) => c.own).map((c) => c.name),
      [kade.name],
    );
    // Kade recognised itself: it refuses to stop its own container.
    const stop = await api.post(`/api/containers/${kade.name}/stop`);
    assert.equal(stop.status, 403);
    assert.equal(stop.body.code, 'own_container');
  });

  test('/data, the stacks and the backups folders belong to 1234:1234; the app data of another owner is left as it was', async () => {
    assert.equal(ownerOf(join(kade.base, 'stacks')), '1234:1234');
    assert.equal(ownerOf(join(kade.base, 'backups')), '1234:1234');
    assert.equal(ownerOf(join(kade.base, 'backups', 'old.tar.gz')), '1234:1234');
    const inside = await docker(['exec', kade.name, 'sh', '-c', 'stat -c "%u:%g %a" /data; find /data ! -user 1234 | head -n 5']);
    assert.equal(inside, '1234:1234 700');
    assertAppUntouched(kade.base);
  });

  test('after a restart the entrypoint runs again over the same folders and leaves the app data alone', async () => {
    await docker(['restart', kade.name]);
    await waitHealthy(kade);
    assertAppUntouched(kade.base);
    assert.equal(ownerOf(join(kade.base, 'stacks')), '1234:1234');
    assert.deepEqual((await nodeStatus(kade.name)).Uid?.split(/\s+/), ['1234', '1234', '1234', '1234']);
  });
});

describe('the entrypoint with SVC_UID=0', () => {
  test('Kade keeps root and the engine’s default capabilities', async () => {
    const kade = await startKade('kadetest-entrypoint-root', 0);
    const status = await nodeStatus(kade.name);
    assert.deepEqual(status.Uid?.split(/\s+/), ['0', '0', '0', '0']);
    const caps = capNames(status.CapEff ?? '');
    assert.ok(caps.includes('setuid') && caps.includes('net_bind_service') && caps.includes('kill'), caps.join(','));
    assert.equal((await fetch(`${kade.url}/healthz`)).status, 200);
  });
});
