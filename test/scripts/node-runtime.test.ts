import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

// How Kade's node process starts (issue #18, resident memory) is written down once, in scripts/node-runtime.json;
// the image, npm start and the bench must start it that way, or the bench measures something users do not run.
const runtime = JSON.parse(readFileSync('scripts/node-runtime.json', 'utf8')) as { flags: string[]; env: Record<string, string> };
const dockerfile = readFileSync('Dockerfile', 'utf8');

test('the image starts node with the flags and the environment of scripts/node-runtime.json', () => {
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  assert.ok(cmd, 'the Dockerfile has a CMD in exec form');
  assert.deepEqual(JSON.parse(cmd), ['node', ...runtime.flags, 'dist/server/main.js']);
  for (const [k, v] of Object.entries(runtime.env)) assert.match(dockerfile, new RegExp(`^\\s+${k}=${v} \\\\$`, 'm'), `ENV ${k}=${v} in the Dockerfile`);
});

test('npm start starts node with the same flags and environment, in place of its shell (so npm signals reach Kade)', () => {
  const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.start;
  const env = Object.entries(runtime.env).map(([k, v]) => `${k}=${v}`);
  assert.equal(start, [...env, 'exec', 'node', ...runtime.flags, 'scripts/start.mjs'].join(' '));
});

test('the bench reads the same file for the Kade it starts', () => {
  assert.match(readFileSync('bench/index.ts', 'utf8'), /readFileSync\(join\(ROOT, 'scripts', 'node-runtime\.json'\)/);
});

test('every flag is one node accepts', async () => {
  const { execFileSync } = await import('node:child_process');
  // node refuses an unknown flag before running anything.
  assert.equal(
    execFileSync(process.execPath, [...runtime.flags, '-e', 'process.stdout.write("ok")'], { env: { ...process.env, ...runtime.env } }).toString(),
    'ok',
  );
});
