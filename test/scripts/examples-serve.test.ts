// `npm run examples:serve` (issue 24 item 13): this checkout's examples/ served as a git repository on
// 127.0.0.1, its address printed; what a clone of it holds; a taken port and a bad one said in words.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { examplesUrl, serveExamples, stopExamplesServers } from '../helpers/examples-serve.ts';

const execFileP = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'kade-examples-serve-'));

after(() => {
  stopExamplesServers();
  rmSync(root, { recursive: true, force: true });
});

test('prints the address of a git repository holding examples/ with the apps under apps/; Ctrl+C stops it', async () => {
  const { child, out } = await serveExamples({ EXAMPLES_PORT: '0' });
  const url = examplesUrl(out);
  assert.ok(url, out);
  assert.match(out, /Folder with the apps {2}apps/);
  assert.match(out, /Branch {16}main/);
  const clone = join(root, 'clone');
  await execFileP('git', ['clone', '--quiet', '--branch', 'main', url, clone], { timeout: 60_000 });
  assert.equal(readFileSync(join(clone, 'VERSION'), 'utf8'), readFileSync('examples/VERSION', 'utf8'));
  assert.ok(existsSync(join(clone, 'apps', 'whoami', 'template.json')));
  assert.equal(readFileSync(join(clone, 'apps', 'whoami', 'docker-compose.yml'), 'utf8'), readFileSync('examples/apps/whoami/docker-compose.yml', 'utf8'));
  // Ctrl+C reaches the terminal's whole process group; afterwards nothing answers on the address any more.
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-(child.pid as number), 'SIGINT');
  await ended;
  await new Promise((r) => setTimeout(r, 500));
  await assert.rejects(fetch(`${url}/info/refs?service=git-upload-pack`, { signal: AbortSignal.timeout(2000) }));
});

test('a taken port and a bad one are refused in words, with the way out', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const taken = await serveExamples({ EXAMPLES_PORT: String(port) });
    assert.equal(taken.code, 1, taken.out);
    assert.match(taken.out, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is taken .*EXAMPLES_PORT=<another port>`));
  } finally {
    blocker.close();
  }
  const bad = await serveExamples({ EXAMPLES_PORT: 'eighty' });
  assert.equal(bad.code, 1, bad.out);
  assert.match(bad.out, /'eighty' is no port number/);
});
