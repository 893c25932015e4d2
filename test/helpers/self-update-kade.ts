import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { parseDocument } from 'yaml';
import { freePort } from '../engine/contract-helpers.ts';
import type { ApiAnswer, ApiClient } from './client.ts';
import { TEST_LABEL } from './engine.ts';
import { kadeImage } from './kade-image.ts';
import { type Registry, startRegistry } from './registry.ts';

const execFileP = promisify(execFile);

/** A command's stdout; `input` goes to its stdin. */
export async function run(file: string, args: string[], opts: { cwd?: string; input?: string; timeout?: number } = {}): Promise<string> {
  const child = execFileP(file, args, { cwd: opts.cwd, timeout: opts.timeout ?? 300_000, maxBuffer: 16 << 20 });
  if (opts.input !== undefined) child.child.stdin?.end(opts.input);
  return (await child).stdout.trim();
}

export interface SelfUpdateKade {
  /** Kade's image built from this work tree, the base of every tag. */
  local: string;
  /** `<registry>/kadetest/kade`, without a tag. */
  image: string;
  url: string;
  /** Pushes `image:tag`, the local image with VERSION `tag` (and another command, say one whose server never runs). */
  push(tag: string, cmd?: string[]): Promise<void>;
  /** The version /healthz answers, or null while Kade is away. */
  health(): Promise<string | null>;
  /** Waits until /healthz answers `version` (the helper recreates Kade meanwhile). */
  waitForVersion(version: string, seconds?: number): Promise<void>;
  /** GET /api/update once the helper has written its result (a moment after the new Kade answers). */
  settled(admin: ApiClient): Promise<ApiAnswer<any>>;
  /** SVC_TAG in the compose project's .env. */
  envTag(): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * Kade as install.sh sets it up, updatable from a local registry: this work tree's image pushed under each of
 * `tags` (each with that VERSION), started from the first with the repo's compose.yaml as compose project
 * `project`, on the host network (so it reaches the registry on 127.0.0.1). Only the first tag stays in the
 * engine, so an update pulls. The helper waits `healthSeconds` for a new version's /healthz.
 */
export async function startSelfUpdateKade(opts: { project: string; tags: string[]; healthSeconds: number }): Promise<SelfUpdateKade> {
  const { project } = opts;
  const local = await kadeImage();
  const registry: Registry = await startRegistry();
  const image = `${registry.host}/kadetest/kade`;
  const pushed: string[] = [];
  let dir = '';
  const compose = (args: string[]) => run('docker-compose', ['-p', project, '-f', 'compose.yaml', '-f', 'compose.test.yaml', ...args], { cwd: dir });
  const port = await freePort();
  const health = async (): Promise<string | null> => {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
      return r.ok ? ((await r.json()) as { version: string }).version : null;
    } catch {
      return null;
    }
  };
  const kade: SelfUpdateKade = {
    local,
    image,
    url: `http://127.0.0.1:${port}`,
    async push(tag, cmd) {
      const lines = [`FROM ${local}`, `RUN printf '%s\\n' '${tag}' > /app/VERSION`, ...(cmd ? [`CMD ${JSON.stringify(cmd)}`] : [])];
      pushed.push(`${image}:${tag}`);
      await run('docker', ['build', '-q', '-t', `${image}:${tag}`, '-'], { input: `${lines.join('\n')}\n` });
      await run('docker', ['push', `${image}:${tag}`]);
    },
    health,
    async waitForVersion(version, seconds = 150) {
      let seen: string | null = null;
      for (let i = 0; i < seconds * 2; i++) {
        seen = await health();
        if (seen === version) return;
        await sleep(500);
      }
      const logs = await run('docker', ['logs', '--tail', '40', `${project}-self-update`]).catch(() => '(helper gone)');
      assert.fail(`Kade did not come back as ${version} (last answer ${seen}); helper: ${logs}`);
    },
    async settled(admin) {
      for (let i = 0; i < 120; i++) {
        const s = await admin.get('/api/update');
        if (s.status === 200 && s.body.last?.state !== 'running') return s;
        await sleep(500);
      }
      assert.fail('the helper left no result');
    },
    envTag: async () => /^SVC_TAG="?([^"\n]*)"?$/m.exec(await readFile(join(dir, '.env'), 'utf8'))?.[1],
    async close() {
      await run('docker', ['rm', '--force', `${project}-self-update`]).catch(() => undefined);
      if (dir) await compose(['down', '--volumes', '--remove-orphans']).catch(() => undefined);
      for (const t of pushed) await run('docker', ['rmi', '--force', t]).catch(() => undefined);
      await registry.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    for (const tag of opts.tags) await kade.push(tag);
    for (const tag of opts.tags.slice(1)) await run('docker', ['rmi', `${image}:${tag}`]);
    dir = await mkdtemp(join(tmpdir(), `${project}-`));
    await writeProject(dir, { image, tag: opts.tags[0] as string, port, healthSeconds: opts.healthSeconds });
    await compose(['up', '-d']);
    await kade.waitForVersion(opts.tags[0] as string, 90);
    return kade;
  } catch (err) {
    await kade.close();
    throw err;
  }
}

/**
 * The repo's compose file without its published port, `.env` as install.sh writes it, and an override that puts
 * Kade on the host network (so it reaches the registry on 127.0.0.1, which in a bridge container would be its
 * own loopback; compose v1 refuses published ports there) with the test label.
 */
async function writeProject(dir: string, o: { image: string; tag: string; port: number; healthSeconds: number }): Promise<void> {
  const base = join(dir, 'base');
  await mkdir(base);
  const file = parseDocument(await readFile(resolve('compose.yaml'), 'utf8'));
  assert.ok(file.hasIn(['services', 'kade', 'ports']), 'compose.yaml publishes a port');
  file.deleteIn(['services', 'kade', 'ports']);
  await writeFile(join(dir, 'compose.yaml'), file.toString());
  await writeFile(
    join(dir, '.env'),
    [`SVC_IMAGE=${o.image}`, `SVC_TAG=${o.tag}`, `SVC_PORT=${o.port}`, 'SVC_BIND=127.0.0.1', 'SVC_UID=0', 'SVC_GID=0', `BASE_DIR=${base}`, ''].join('\n'),
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
      `      SVC_PORT: "${o.port}"`,
      '      SVC_BIND: 127.0.0.1',
      `      SVC_UPDATE_HEALTH_SECONDS: "${o.healthSeconds}"`,
      '',
    ].join('\n'),
  );
}
