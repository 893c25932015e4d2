import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// dockerode costs ~127 ms and ~21 MiB at load (docker-modem loads ssh2, whose poly1305 takes 16 MiB of WebAssembly
// memory; its session.js loads @grpc/grpc-js and protobufjs). Kade must not pay it: every engine call goes through
// engine-api.ts. ESM imports of CommonJS modules are in require.cache too, so the cache tells what the built server
// loaded.
const KADE = fileURLToPath(new URL('../../../dist/server/kade.js', import.meta.url));
const SCRIPT = `import(${JSON.stringify(KADE)}).then(() => console.log(JSON.stringify(Object.keys(require.cache).filter((k) => /dockerode|ssh2|@grpc|protobufjs/.test(k)))))`;

test('loading the built server (dist/server/kade.js) loads no dockerode, ssh2, @grpc or protobufjs module', { timeout: 60_000 }, async () => {
  assert.ok(existsSync(KADE), `${KADE} is missing: npm test builds it first (npm run build)`);
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', SCRIPT], { timeout: 30_000 });
  assert.deepEqual(JSON.parse(stdout.trim()), []);
});
