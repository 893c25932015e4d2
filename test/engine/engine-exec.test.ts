import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Docker from 'dockerode';
import { createDockerEngine } from '../../src/server/engine/docker-engine.ts';
import { EXEC_OUTPUT_LIMIT } from '../../src/server/engine/engine.ts';
import { requireEngine, TEST_LABEL, TEST_LABEL_VALUE } from '../helpers/engine.ts';
import { readAll, rejectsWith } from './contract-helpers.ts';

const engine = createDockerEngine({ socketPath: '/var/run/docker.sock' });
// Containers are created and paused with dockerode directly: the Engine interface has no such calls.
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const run = randomBytes(3).toString('hex');
const T = { timeout: 60_000 };
const names: string[] = [];

async function start(name: string): Promise<{ id: string; name: string }> {
  const full = `kadetest-exec-${name}-${run}`;
  names.push(full);
  const c = await docker.createContainer({
    name: full,
    Image: 'kade-test/busybox:1',
    Cmd: ['sleep', '300'],
    Env: ['FROM_IMAGE_CONFIG=container'],
    Labels: { [TEST_LABEL]: TEST_LABEL_VALUE },
    // `sleep` as PID 1 ignores SIGTERM; the init makes stop take milliseconds.
    HostConfig: { Init: true },
  });
  await c.start();
  return { id: c.id, name: full };
}

let box = { id: '', name: '' };

before(async () => {
  await requireEngine();
  box = await start('box');
});

after(async () => {
  // Only this file's containers: other test files may be running against the same engine.
  for (const name of names)
    await docker
      .getContainer(name)
      .remove({ force: true })
      .catch(() => {});
});

test('exec returns the output of a command', T, async () => {
  const r = await engine.exec(box.id, { cmd: ['echo', 'hello from inside'] });
  assert.deepEqual(r, { exitCode: 0, stdout: 'hello from inside\n', stderr: '' });
});

test('exec reports the exit code and keeps stdout and stderr apart', T, async () => {
  const r = await engine.exec(box.id, { cmd: ['sh', '-c', 'echo out; echo err >&2; exit 3'] });
  assert.equal(r.exitCode, 3);
  assert.equal(r.stdout, 'out\n');
  assert.equal(r.stderr, 'err\n');
});

test('exec feeds stdin to the command and closes it', T, async () => {
  const text = `line one\nquote ' and "double"\n${'x'.repeat(100_000)}\nend`;
  const r = await engine.exec(box.id, { cmd: ['cat'], stdin: text });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, text);
});

test('exec passes env next to the container environment, and runs as the given user', T, async () => {
  const r = await engine.exec(box.id, { cmd: ['sh', '-c', 'echo "$SECRET_VALUE|$FROM_IMAGE_CONFIG|$(id -u)"'], env: ['SECRET_VALUE=a b$c'], user: 'nobody' });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, 'a b$c|container|65534\n');
});

test('exec caps the output it keeps', T, async () => {
  const r = await engine.exec(box.id, { cmd: ['sh', '-c', 'head -c 400000 /dev/zero | tr "\\0" a'] });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout.length, EXEC_OUTPUT_LIMIT);
});

test('exec gives up after its timeout', T, async () => {
  const began = Date.now();
  const err = await rejectsWith(engine.exec(box.id, { cmd: ['sleep', '30'], timeoutMs: 500 }), 'engine_unreachable');
  assert.ok(Date.now() - began < 10_000);
  assert.match(err.message, /did not finish within 500 ms/);
});

test('exec in a stopped or paused container is a conflict that names the container', T, async () => {
  const other = await start('stopped');
  await docker.getContainer(other.id).pause();
  const paused = await rejectsWith(engine.exec(other.id, { cmd: ['true'] }), 'conflict');
  assert.match(paused.message, new RegExp(`'${other.name}' is paused`));
  await docker.getContainer(other.id).unpause();
  await engine.stopContainer(other.id);
  const stopped = await rejectsWith(engine.exec(other.id, { cmd: ['true'] }), 'conflict');
  assert.match(stopped.message, new RegExp(`'${other.name}' is not running`));
  assert.equal(stopped.params.name, other.name);
});

test('exec in an unknown container is not_found', T, async () => {
  await rejectsWith(engine.exec(`kadetest-exec-missing-${run}`, { cmd: ['true'] }), 'not_found');
});

const MB = 1024 * 1024;

// A collection on demand, so what a stream holds is measured rather than garbage not yet collected.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Memory held in buffers and on the heap right after a full collection. */
function retained(): number {
  collect();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Hashes a stream's bytes without keeping them, noting the most memory retained meanwhile. */
async function drain(stream: NodeJS.ReadableStream): Promise<{ bytes: number; peak: number; hash: string }> {
  let bytes = 0;
  let peak = 0;
  const hash = createHash('sha256');
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
    if (bytes % (8 * MB) < (chunk as Buffer).length) peak = Math.max(peak, retained());
  }
  return { bytes, peak, hash: hash.digest('hex') };
}

/** `size` bytes of a repeating, non-trivial pattern, produced on demand in 64 KiB pieces. */
function pattern(size: number): { stream: Readable; hash: string } {
  const piece = Buffer.alloc(64 * 1024);
  for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + (i >> 8)) & 0xff;
  const hash = createHash('sha256');
  for (let left = size; left > 0; left -= piece.length) hash.update(piece.subarray(0, Math.min(piece.length, left)));
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const part = piece.subarray(0, Math.min(piece.length, size - sent));
      sent += part.length;
      this.push(part);
    },
  });
  return { stream, hash: hash.digest('hex') };
}

test('execStream streams 100 MB of output without holding it', T, async () => {
  const before = retained();
  const { stdout, done } = await engine.execStream(box.id, { cmd: ['sh', '-c', 'head -c 104857600 /dev/zero | tr "\\0" k'] });
  const got = await drain(stdout);
  assert.deepEqual(await done, { exitCode: 0, stderr: '' });
  assert.equal(got.bytes, 100 * MB);
  const expected = createHash('sha256');
  for (let i = 0; i < 100; i++) expected.update(Buffer.alloc(MB, 'k'));
  assert.equal(got.hash, expected.digest('hex'));
  assert.ok(got.peak - before < 32 * MB, `${Math.round((got.peak - before) / MB)} MB more was held while streaming 100 MB`);
});

test('execStream holds the command back while nobody reads its output', T, async () => {
  const { stdout, done } = await engine.execStream(box.id, { cmd: ['sh', '-c', 'head -c 104857600 /dev/zero; echo finished >&2'] });
  const first = await new Promise<Buffer>((resolve) =>
    stdout.once('data', (chunk: Buffer) => {
      stdout.pause();
      resolve(chunk);
    }),
  );
  // Ample time for a command that is not held back to write all of it (and for the engine to report it done).
  await new Promise((r) => setTimeout(r, 1500));
  const buffered = (stdout as unknown as { readableLength: number }).readableLength;
  assert.ok(buffered < 2 * MB, `${buffered} bytes were buffered while paused`);
  const ps = await engine.exec(box.id, { cmd: ['sh', '-c', 'ps -o comm | grep -c "^head$" || true'] });
  assert.equal(ps.stdout.trim(), '1', 'the writing command is still running, held back');
  stdout.resume();
  const rest = await drain(stdout);
  assert.equal(first.length + rest.bytes, 100 * MB);
  assert.deepEqual(await done, { exitCode: 0, stderr: 'finished\n' });
});

test('execStream pipes 50 MB of stdin to the command and closes it at the end', T, async () => {
  const input = pattern(50 * MB);
  const { stdout, done } = await engine.execStream(box.id, { cmd: ['sh', '-c', 'sha256sum; echo read-all >&2'], stdin: input.stream });
  assert.equal((await readAll(stdout)).split(' ')[0], input.hash);
  assert.deepEqual(await done, { exitCode: 0, stderr: 'read-all\n' });
});

test('execStream reports the exit code, keeps stderr apart, passes env and user', T, async () => {
  const { stdout, done } = await engine.execStream(box.id, {
    cmd: ['sh', '-c', 'echo "out $SECRET_VALUE $(id -u)"; echo err >&2; exit 3'],
    env: ['SECRET_VALUE=s3cr$t'],
    user: 'nobody',
  });
  assert.equal(await readAll(stdout), 'out s3cr$t 65534\n');
  assert.deepEqual(await done, { exitCode: 3, stderr: 'err\n' });
});

test('execStream caps the stderr it keeps', T, async () => {
  const { stdout, done } = await engine.execStream(box.id, { cmd: ['sh', '-c', 'head -c 400000 /dev/zero | tr "\\0" e >&2'] });
  assert.equal(await readAll(stdout), '');
  const r = await done;
  assert.equal(r.exitCode, 0);
  assert.equal(r.stderr.length, EXEC_OUTPUT_LIMIT);
});

test('execStream in a missing container is not_found, in a stopped one a conflict', T, async () => {
  await rejectsWith(engine.execStream(`kadetest-exec-missing-${run}`, { cmd: ['true'] }), 'not_found');
  const other = await start('stopped-stream');
  await engine.stopContainer(other.id);
  const err = await rejectsWith(engine.execStream(other.id, { cmd: ['true'] }), 'conflict');
  assert.match(err.message, new RegExp(`'${other.name}' is not running`));
});
