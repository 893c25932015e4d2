import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { run } from '../../src/server/core/exec.ts';
import type { ComposeProject } from '../../src/server/engine/compose.ts';
import { createComposeCli } from '../../src/server/engine/compose-cli.ts';
import { createDockerEngine } from '../../src/server/engine/docker-engine.ts';
import { cleanupLabelled, requireEngine, TEST_LABEL } from '../helpers/engine.ts';

const ENDPOINT = { socketPath: '/var/run/docker.sock' };
const engine = createDockerEngine(ENDPOINT);
const compose = createComposeCli(ENDPOINT);
const T = { timeout: 120_000 };
const projects: ComposeProject[] = [];
const dirs: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

const service = (name: string, image = 'kade-test/busybox:1') =>
  `  ${name}:\n    image: ${image}\n    init: true\n    command: [sleep, "300"]\n    labels:\n      ${TEST_LABEL}: "1"\n`;

/** A project in its own temp dir; the space in the path checks that no shell ever splits it. */
function project(tag: string, yaml = `services:\n${service('web')}${service('worker')}`): ComposeProject {
  const dir = tempDir('kade compose-');
  const p = { name: `kadetest-compose-${tag}-${randomBytes(3).toString('hex')}`, dir, file: join(dir, 'docker-compose.yml') };
  writeFileSync(p.file, yaml);
  projects.push(p);
  return p;
}

const states = async (p: ComposeProject) => (await engine.listContainers({ project: p.name })).map((c) => c.state).sort();

/**
 * A `docker` that has a compose plugin: logs each call's arguments one bracketed word each, then
 * hands `compose ...` to docker-compose v1, which takes the same global options.
 */
function shim(works: boolean): { env: NodeJS.ProcessEnv; log: string } {
  const dir = tempDir('kade-shim-');
  const log = join(dir, 'calls.log');
  const script = [
    '#!/bin/sh',
    `for a in "$@"; do printf '[%s]' "$a"; done >> '${log}'`,
    `echo >> '${log}'`,
    '[ "$1" = compose ] || exit 2',
    works ? '' : 'exit 1',
    'shift',
    'if [ "$1" = version ]; then echo "Docker Compose version v2.99.0-shim"; exit 0; fi',
    'exec docker-compose "$@"',
  ].join('\n');
  writeFileSync(join(dir, 'docker'), `${script}\n`);
  chmodSync(join(dir, 'docker'), 0o755);
  return { env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}` }, log };
}
const calls = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);

before(async () => {
  await requireEngine();
  await cleanupLabelled();
});

after(async () => {
  for (const p of projects) await compose.down(p, { timeoutMs: 60_000 }).catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await cleanupLabelled();
});

test('variant() finds the installed CLI: v1 when docker has no compose plugin', T, async () => {
  const plugin = await run('docker', ['compose', 'version'], { timeoutMs: 15_000 }).catch(() => null);
  assert.equal(await compose.variant(), plugin?.code === 0 ? 'v2' : 'v1');
});

test('the v2 plugin is preferred when `docker compose version` works, with arguments passed as they are', T, async () => {
  const { env, log } = shim(true);
  const v2 = createComposeCli(ENDPOINT, 'auto', { env });
  assert.equal(await v2.variant(), 'v2');
  const p = project('shim');
  await v2.up(p);
  assert.deepEqual(await states(p), ['running', 'running']);
  await v2.down(p);
  assert.deepEqual(await states(p), []);
  const base = `[compose][-p][${p.name}][-f][${p.file}][--project-directory][${p.dir}]`;
  assert.deepEqual(calls(log), ['[compose][version]', `${base}[up][-d][--remove-orphans]`, `${base}[down][--remove-orphans]`]);
});

test('v1 is used when `docker compose version` fails', T, async () => {
  const { env, log } = shim(false);
  const cli = createComposeCli(ENDPOINT, 'auto', { env });
  assert.equal(await cli.variant(), 'v1');
  await cli.validate(project('fallback'));
  assert.deepEqual(calls(log), ['[compose][version]']);
});

test('prefer v1 never asks the docker CLI, even when it has a working plugin', T, async () => {
  const { env, log } = shim(true);
  const cli = createComposeCli(ENDPOINT, 'v1', { env });
  assert.equal(await cli.variant(), 'v1');
  await cli.validate(project('prefer'));
  assert.deepEqual(calls(log), []);
});
