import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** The stand-in for node:20-bookworm-slim (test/fixtures/images/build.sh). */
export const TEST_BASE_IMAGE = 'kade-test/node:20';
/** Repository of the images built here; the tag is the hash of the inputs. */
export const KADE_TEST_REPO = 'kade-test/kade';
/** Serialises builds across test processes (not the engine lock: callers may already hold that one). */
// One lock for every lane of a run (each lane has a TMPDIR of its own).
const BUILD_LOCK = '/tmp/kade-image-build.lock';
/** What the Dockerfile reads (the same allow list as .dockerignore); tests are not part of the image. */
const INPUTS = ['Dockerfile', '.dockerignore', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'VERSION', 'src', 'docker'];

/**
 * A hash of the image's inputs as they are in the work tree: every file git knows or would add
 * (tracked and untracked, not ignored) below the inputs, by path and content, tests left out.
 */
export async function kadeImageInputsHash(root = ROOT): Promise<string> {
  const { stdout } = await execFileP('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...INPUTS], {
    cwd: root,
    maxBuffer: 64 << 20,
  });
  const files = [...new Set(stdout.split('\0').filter((f) => f && !/\.test\.tsx?$/.test(f)))].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const path = join(root, file);
    // A tracked file deleted in the work tree is not in the build context either.
    if (!existsSync(path)) continue;
    hash.update(`${file}\0`);
    hash.update(await readFile(path));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 12);
}

function run(cmd: string, args: string[], log: string[]): Promise<number> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (b: Buffer) => {
      log.push(b.toString('utf8'));
      if (log.length > 4000) log.splice(0, log.length - 4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => resolveRun(code ?? 1));
  });
}

async function haveImage(tag: string): Promise<boolean> {
  try {
    await execFileP('docker', ['image', 'inspect', '--format', '{{.Id}}', tag], { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

async function ensureBaseImage(): Promise<void> {
  if (await haveImage(TEST_BASE_IMAGE)) return;
  const log: string[] = [];
  const code = await run('bash', [join(ROOT, 'test/fixtures/images/build.sh'), '--only', 'node'], log);
  if (code !== 0) throw new Error(`building ${TEST_BASE_IMAGE} failed (exit ${code}):\n${log.join('').slice(-6000)}`);
}

async function build(tag: string): Promise<string> {
  await ensureBaseImage();
  const started = Date.now();
  const log: string[] = [];
  // Inside the lock the tag is looked for again: another process may have built it meanwhile.
  const script = 'docker image inspect "$1" >/dev/null 2>&1 && { echo "kade-image: $1 exists"; exit 0; }; shift; exec docker build "$@"';
  const args = [BUILD_LOCK, 'sh', '-c', script, 'sh', tag, '--build-arg', `BASE_IMAGE=${TEST_BASE_IMAGE}`, '--label', 'kade.test.image=kade', '-t', tag, ROOT];
  const code = await run('flock', args, log);
  const output = log.join('');
  if (code !== 0) {
    const logFile = join(await mkdtemp(join(tmpdir(), 'kade-image-')), 'build.log');
    await writeFile(logFile, output);
    throw new Error(`docker build of ${tag} failed (exit ${code}; whole log: ${logFile}):\n${output.slice(-6000)}`);
  }
  const reused = output.includes(`kade-image: ${tag} exists`);
  console.log(`kade-image: ${tag} ${reused ? 'built by another process' : 'built'} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return tag;
}

let pending: Promise<string> | undefined;

/**
 * Kade's image built from the current work tree on the test base image, tagged
 * `kade-test/kade:<hash of the inputs>`; an image with that tag is used as it is. One build per
 * process; builds of several processes wait for each other, and the layer cache keeps a rebuild
 * after a source change to the compile steps.
 */
export function kadeImage(): Promise<string> {
  pending ??= (async () => {
    const tag = `${KADE_TEST_REPO}:${await kadeImageInputsHash()}`;
    if (await haveImage(tag)) return tag;
    return build(tag);
  })();
  // A failed build may succeed on a later call (the engine was restarting, say).
  pending.catch(() => {
    pending = undefined;
  });
  return pending;
}

/** The version baked into the image built from this work tree (VERSION). */
export function workTreeVersion(): string {
  return readFileSync(join(ROOT, 'VERSION'), 'utf8').trim();
}
