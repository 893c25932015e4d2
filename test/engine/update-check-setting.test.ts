import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type Registry, startRegistry } from '../helpers/registry.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const execFileP = promisify(execFile);
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 120_000 })).stdout.trim();

/** A plain HTTP pass-through to the registry that counts every request Kade (or the engine) makes. */
async function countingProxy(target: string): Promise<{ host: string; count(): number; reset(): void; close(): Promise<void> }> {
  const [hostname, port] = target.split(':');
  let n = 0;
  const server: Server = createServer((req, res) => {
    n++;
    const up = request({ hostname, port: Number(port), path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => n,
    reset: () => {
      n = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let registry: Registry;
let proxy: Awaited<ReturnType<typeof countingProxy>>;
let root: string;
let kade: TestServer | undefined;
let api: ApiClient;
const NAME = 'kadetest-updcheck';
const pushed: string[] = [];

/** Kade on the same folders, with the background check due `firstMs` after the start. */
async function startKade(firstMs: number): Promise<void> {
  await kade?.close();
  kade = await startTestServer({ stateDir: join(root, 'state'), baseDir: join(root, 'base'), kade: { firstUpdateCheckMs: firstMs } });
  api = new ApiClient(kade.url);
  await api.loginAs();
}

const listed = async () => (await api.get<{ name: string; update: string }[]>('/api/stacks')).body.find((s) => s.name === NAME)?.update;

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  registry = await startRegistry();
  proxy = await countingProxy(registry.host);
  root = mkdtempSync(join(tmpdir(), 'kade-updcheck-'));
  const direct = `${registry.host}/kadetest/updcheck:latest`;
  await docker(['tag', 'kade-test/busybox:1', direct]);
  pushed.push(direct);
  await docker(['push', direct]);
  await startKade(3_600_000);
  // An app whose image comes from the registry through the counting proxy; compose pulls it through the proxy.
  const dir = join(root, 'base', 'stacks', NAME);
  mkdirSync(dir, { recursive: true });
  const image = `${proxy.host}/kadetest/updcheck:latest`;
  pushed.push(image);
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    `services:\n  app:\n    image: ${image}\n    init: true\n    command: ["sleep", "3600"]\n    labels:\n      kade.test: "1"\n`,
  );
  await api.acceptFiles(NAME);
  const r = await api.post<{ job: { id: string } }>(`/api/stacks/${NAME}/start`);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const job = await api.waitJob(r.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
});

after(async () => {
  await kade?.close();
  await cleanupLabelled();
  for (const ref of pushed) await docker(['rmi', '--force', ref]).catch(() => undefined);
  await proxy?.close();
  await registry?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

test('UPDATE_CHECK_ENABLED off: the background check asks no registry; on: it does and the list shows the result', async () => {
  const off = await api.put('/api/settings', { UPDATE_CHECK_ENABLED: false });
  assert.equal(off.status, 200, JSON.stringify(off.body));
  proxy.reset();
  await startKade(200);
  await sleep(2_500);
  assert.equal(proxy.count(), 0, 'no request reached the registry while the check is off');
  assert.equal(await listed(), 'unknown');

  assert.equal((await api.put('/api/settings', { UPDATE_CHECK_ENABLED: true })).status, 200);
  await startKade(200);
  const deadline = Date.now() + 30_000;
  while ((await listed()) === 'unknown' && Date.now() < deadline) await sleep(200);
  assert.equal(await listed(), 'current', 'the background check compared the running image with the registry');
  assert.ok(proxy.count() > 0, 'the check asked the registry');
});
