import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type Registry, startRegistry } from '../helpers/registry.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// The port check's probe image (SVC_PROBE_IMAGE) is pulled when the engine lacks it, e.g. in a fresh
// installation of Kade's container. The image comes from a local registry here.
const execFileP = promisify(execFile);
const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 120_000 })).stdout.trim();
const present = (image: string) =>
  docker(['image', 'inspect', '--format', '{{.Id}}', image]).then(
    () => true,
    () => false,
  );

let registry: Registry;
let probeImage: string;
let absentImage: string;
let kade: TestServer | undefined;
let listener: Server;
let listening: number;

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  registry = await startRegistry();
  probeImage = `${registry.host}/kadetest-probe:1`;
  absentImage = `${registry.host}/kadetest-probe-absent:1`;
  await docker(['tag', 'kade-test/busybox:1', probeImage]);
  await docker(['push', probeImage]);
  await docker(['rmi', probeImage]);
  listener = createServer();
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  listening = (listener.address() as { port: number }).port;
});

after(async () => {
  await kade?.close();
  await new Promise<void>((r) => (listener ? listener.close(() => r()) : r()));
  if (probeImage) await docker(['rmi', '--force', probeImage]).catch(() => '');
  await registry?.close();
  await cleanupLabelled();
});

/** Port checks until the host was inspected (the pull runs beside the first checks); the last answer. */
async function checkUntilInspected(api: ApiClient, port: number, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api.get(`/api/ports/check?port=${port}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    if (r.body.host_inspected === true || Date.now() > deadline) return r;
    await new Promise((res) => setTimeout(res, 500));
  }
}

test('a missing probe image is pulled, and the port check then reads the host with it', async () => {
  assert.equal(await present(probeImage), false, 'the image is not on the engine before Kade starts');
  kade = await startTestServer({ env: { SVC_PROBE_IMAGE: probeImage } });
  const api = new ApiClient(kade.url);
  await api.loginAs();
  const r = await checkUntilInspected(api, listening);
  assert.equal(r.body.host_inspected, true, JSON.stringify(r.body));
  // Only the probe in the host's network namespace sees this listener of the host itself.
  assert.equal(r.body.free, false);
  assert.equal(r.body.held_by, null);
  assert.equal(await present(probeImage), true);
});

test('an image the registry does not have stays missing: the check says so and the log names the failed pull', async () => {
  const log = new PassThrough();
  let text = '';
  log.on('data', (b: Buffer) => {
    text += b.toString('utf8');
  });
  const blind = await startTestServer({ env: { SVC_PROBE_IMAGE: absentImage, SVC_LOG_LEVEL: 'warn' }, logTo: log });
  try {
    const api = new ApiClient(blind.url);
    await api.loginAs();
    const deadline = Date.now() + 60_000;
    while (!text.includes(`pulling the probe image '${absentImage}' failed`) && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 200));
    }
    assert.match(text, /pulling the probe image '[^']+kadetest-probe-absent:1' failed/);
    const r = await api.get(`/api/ports/check?port=${listening}`);
    assert.equal(r.body.host_inspected, false);
    assert.equal(r.body.missing_image, absentImage);
    assert.match(r.body.note, /'free' is an assumption/);
  } finally {
    await blind.close();
  }
});

test('with SVC_PROBE_PULL=0 Kade pulls nothing: the image stays missing and the check names it', async () => {
  const notPulled = `${registry.host}/kadetest-probe-nopull:1`;
  await docker(['tag', 'kade-test/busybox:1', notPulled]);
  await docker(['push', notPulled]);
  await docker(['rmi', notPulled]);
  const off = await startTestServer({ env: { SVC_PROBE_IMAGE: notPulled, SVC_PROBE_PULL: '0' } });
  try {
    const api = new ApiClient(off.url);
    await api.loginAs();
    // Port checks ask for the image again each time the probe misses it; none of them pulls it.
    for (let i = 0; i < 5; i++) {
      const r = await api.get(`/api/ports/check?port=${listening}`);
      assert.equal(r.body.host_inspected, false, JSON.stringify(r.body));
      assert.equal(r.body.missing_image, notPulled);
      await new Promise((res) => setTimeout(res, 500));
    }
    assert.equal(await present(notPulled), false, 'the registry has it, and still it was not pulled');
  } finally {
    await off.close();
    await docker(['rmi', '--force', notPulled]).catch(() => '');
  }
});
