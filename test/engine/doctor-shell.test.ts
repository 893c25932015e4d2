// scripts/doctor.sh (what `install.sh --doctor` runs) against Kade's real image started by compose in a
// temporary install directory, under dash and busybox sh: a healthy installation exits 0; `.env` 0644
// is an error with the chmod fix; BASE_DIR not mounted at all gives "missing in the container"; BASE_DIR
// fed from an empty host folder gives "empty in the container"; both with the --force-recreate route back.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { kadeImage } from '../helpers/kade-image.ts';
import { freePort } from './contract-helpers.ts';

const execFileP = promisify(execFile);
const SHELLS = [
  ['dash', ['dash']],
  ['busybox sh', ['busybox', 'sh']],
] as const;
const COMPOSE_SRC = readFileSync(resolve('compose.yaml'), 'utf8');
const BASE_MOUNT = '- ${BASE_DIR:?set BASE_DIR in .env}:${BASE_DIR:?set BASE_DIR in .env}';
const root = mkdtempSync(join(tmpdir(), 'kade-doctor-sh-'));
let image: { repo: string; tag: string };
let composeCmd: string[];

interface Install {
  dir: string;
  base: string;
  project: string;
  port: number;
}

function doctor(shell: readonly string[], dir: string, extra: string[] = []): Promise<{ code: number | null; out: string }> {
  const [cmd, ...pre] = shell;
  return new Promise((done, fail) => {
    const child = spawn(cmd as string, [...pre, join(dir, 'scripts', 'doctor.sh'), '--doctor', '--dir', dir, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString('utf8');
    });
    child.stderr.on('data', (b: Buffer) => {
      out += b.toString('utf8');
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, out }));
  });
}

/** An install directory as install.sh leaves it, with compose.yaml's BASE_DIR mount as `mount` says, and Kade started. */
async function install(name: string, mount: 'same' | 'none' | 'empty'): Promise<Install> {
  const dir = join(root, name, 'install');
  const base = join(root, name, 'base');
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  copyFileSync(resolve('scripts/doctor.sh'), join(dir, 'scripts', 'doctor.sh'));
  // The host's installation has an app.
  mkdirSync(join(base, 'stacks', 'web'), { recursive: true });
  writeFileSync(join(base, 'stacks', 'web', 'compose.yaml'), 'services: {}\n');
  let compose = COMPOSE_SRC;
  assert.ok(compose.includes(BASE_MOUNT), 'compose.yaml mounts BASE_DIR at the same path');
  if (mount === 'none')
    compose = compose
      .split('\n')
      .filter((l) => l.trim() !== BASE_MOUNT)
      .join('\n');
  if (mount === 'empty') {
    const empty = join(root, name, 'empty');
    mkdirSync(empty);
    compose = compose.replace(BASE_MOUNT, `- ${empty}:\${BASE_DIR}`);
  }
  writeFileSync(join(dir, 'compose.yaml'), compose);
  const port = await freePort();
  const project = `kadetest-doctor-${name}`;
  const env = [
    `COMPOSE_PROJECT_NAME=${project}`,
    `SVC_IMAGE=${image.repo}`,
    `SVC_TAG=${image.tag}`,
    `SVC_PORT=${port}`,
    'SVC_BIND=127.0.0.1',
    'SVC_UID=0',
    'SVC_GID=0',
    `BASE_DIR=${base}`,
    'SVC_PROBE_IMAGE=kade-test/busybox:1',
  ];
  writeFileSync(join(dir, '.env'), `${env.join('\n')}\n`, { mode: 0o600 });
  chmodSync(join(dir, '.env'), 0o600);
  await execFileP(composeCmd[0] as string, [...composeCmd.slice(1), '-p', project, '-f', 'compose.yaml', 'up', '-d', '--no-build'], {
    cwd: dir,
    timeout: 180_000,
  });
  await waitHealthz(port);
  return { dir, base, project, port };
}

async function waitHealthz(port: number): Promise<void> {
  for (let i = 0; i < 120; i++) {
    // curl, time-limited, as the doctor itself asks.
    const ok = await execFileP('curl', ['-fsS', '-m', '2', '-o', '/dev/null', `http://127.0.0.1:${port}/healthz`]).then(
      () => true,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`Kade did not answer /healthz on port ${port}`);
}

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  const tag = await kadeImage();
  const [repo, t] = tag.split(':');
  image = { repo: repo as string, tag: t as string };
  composeCmd = await execFileP('docker', ['compose', 'version']).then(
    () => ['docker', 'compose'],
    () => ['docker-compose'],
  );
});

after(async () => {
  await cleanupLabelled();
  rmSync(root, { recursive: true, force: true });
});

const RECREATE = (dir: string) => new RegExp(`^  fix: cd ${dir} && docker[ -]compose up -d --force-recreate$`, 'm');

describe('a healthy installation', () => {
  let inst: Install;
  before(async () => {
    inst = await install('healthy', 'same');
  });

  for (const [name, shell] of SHELLS) {
    test(`exits 0 with every check printed (${name})`, async () => {
      const r = await doctor(shell, inst.dir);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /^OK .*\.env has mode 0600$/m);
      assert.match(r.out, new RegExp(`^OK Kade answers at http://127\\.0\\.0\\.1:${inst.port}/healthz$`, 'm'));
      // From the host (docker top) and from inside (Kade's own report).
      assert.match(r.out, /^OK the Kade process in container \S+ runs as uid 0, as SVC_UID says$/m);
      assert.match(r.out, /^OK Kade runs as uid 0, as SVC_UID says$/m);
      // Only the warnings a fresh installation has: no store yet, a health check still starting, a small disk.
      assert.doesNotMatch(r.out, /^WARN (?!0 apps in the store cache|container \S+ is running, its health check is still starting|\S+ ".*": .* free \(below)/m);
      assert.match(r.out, new RegExp(`^OK "${inst.base}/stacks": 1 entries in the container and on the host$`, 'm'));
      // Kade's own report from inside the container: the folders in repr form, the verdict per folder, the store.
      assert.match(r.out, new RegExp(`^OK LIBRARY_DIR in use: "${inst.base}/stacks"$`, 'm'));
      assert.match(r.out, /^ {2}- "web": an app \(folder\)$/m);
      assert.match(r.out, /^WARN 0 apps in the store cache/m);
      assert.match(r.out, /^OK engine /m);
      assert.doesNotMatch(r.out, /^ERROR /m);
    });
  }

  test('.env readable by others is an error with the chmod fix, also through install.sh --doctor', async () => {
    chmodSync(join(inst.dir, '.env'), 0o644);
    try {
      const r = await doctor(['dash'], inst.dir);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, new RegExp(`^ERROR ${inst.dir}/\\.env has mode 644; .*\\n {2}fix: chmod 600 ${inst.dir}/\\.env$`, 'm'));
      const viaInstaller = await execFileP('dash', [resolve('install.sh'), '--doctor', '--dir', inst.dir]).then(
        (x) => ({ code: 0, out: x.stdout }),
        (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
      );
      assert.equal(viaInstaller.code, 1, viaInstaller.out);
      assert.match(viaInstaller.out, new RegExp(`fix: chmod 600 ${inst.dir}/\\.env`));
    } finally {
      chmodSync(join(inst.dir, '.env'), 0o600);
    }
  });
});

describe('BASE_DIR not mounted into the container at all', () => {
  let inst: Install;
  before(async () => {
    inst = await install('missing', 'none');
    // A folder of the host's BASE_DIR that Kade does not make itself: the container cannot have it.
    mkdirSync(join(inst.base, 'media'));
    writeFileSync(join(inst.base, 'media', 'song.ogg'), 'x');
  });

  for (const [name, shell] of SHELLS) {
    test(`is "missing in the container" with the --force-recreate route back, exit 1 (${name})`, async () => {
      const r = await doctor(shell, inst.dir);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, new RegExp(`^ERROR "${inst.base}/media" is missing in the container but exists on the host with 1 entries`, 'm'));
      assert.match(r.out, RECREATE(inst.dir));
    });
  }
});

describe('BASE_DIR fed from an empty host folder', () => {
  let inst: Install;
  before(async () => {
    inst = await install('empty', 'empty');
  });

  for (const [name, shell] of SHELLS) {
    test(`is "empty in the container" while the host has content, with the route back, exit 1 (${name})`, async () => {
      const r = await doctor(shell, inst.dir);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, new RegExp(`^ERROR "${inst.base}/stacks" is empty in the container while the host has 1 entries`, 'm'));
      assert.doesNotMatch(r.out, /is missing in the container/);
      assert.match(r.out, RECREATE(inst.dir));
    });
  }
});
