import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContainerSpec } from '../engine/engine.ts';
import { createFakeEngine } from '../engine/fake-engine.ts';
import { createHostProbe } from './host-probe.ts';

const IMAGE = 'busybox:1.37';
// A listener on 127.0.0.1:8080 (tcp) and one on 0.0.0.0:53 (udp); the tcp6 and udp6 tables are missing (IPv6 off).
const TCP = '  sl  local_address rem_address   st\n   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1\n';
const UDP = '  sl  local_address rem_address   st\n   0: 00000000:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 2 2\n';

function host() {
  const engine = createFakeEngine();
  engine.addImage(IMAGE);
  engine.files.set('/proc/net/tcp', TCP);
  engine.files.set('/proc/net/udp', UDP);
  const missing: string[] = [];
  const probe = createHostProbe({ engine, image: IMAGE, onImageMissing: () => missing.push(IMAGE), timeoutMs: 2000 });
  return { engine, probe, missing };
}

test("the host's listeners are read by a short-lived unprivileged container in the host network, which is gone afterwards", async () => {
  const { engine, probe } = host();
  const r = await probe.listeners();
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual([[...r.listeners.tcp], [...r.listeners.udp]], [[8080], [53]]);
  const spec = engine.calls.find((c) => c.method === 'runContainer')?.args[0] as ContainerSpec;
  assert.deepEqual(
    [spec.cmd.slice(0, 3), spec.user, spec.network, spec.powers, spec.readOnlyRoot, spec.autoRemove, spec.labels?.['kade.probe']],
    [['tail', '-n', '+1'], '65534:65534', 'host', 'none', true, true, 'host-ports'],
  );
  assert.deepEqual(await engine.listContainers(), []);
});

test('the network tables come back split by file', async () => {
  const { engine, probe } = host();
  engine.files.set('/proc/net/route', 'Iface\tDestination\neth0\t0000A8C0\n');
  engine.files.set('/proc/net/arp', 'IP address HW type\n');
  engine.files.set('/proc/net/fib_trie', 'Main:\n');
  const r = await probe.netTables();
  assert.ok(r.ok, JSON.stringify(r));
  const { route, arp, fibTrie } = r.tables;
  assert.deepEqual([route.trimEnd(), arp.trimEnd(), fibTrie.trimEnd()], ['Iface\tDestination\neth0\t0000A8C0', 'IP address HW type', 'Main:']);
});

test('a missing image, an engine away and a probe that hangs are results with their reason, never a throw', async () => {
  const absent = host();
  const noImage = createHostProbe({ engine: absent.engine, image: 'busybox:absent', onImageMissing: () => absent.missing.push('asked') });
  assert.deepEqual(await noImage.listeners(), {
    ok: false,
    reason: 'image_missing',
    message: "probe image 'busybox:absent' is not present on the engine",
    image: 'busybox:absent',
  });
  assert.deepEqual(absent.missing, ['asked'], 'the image is asked for');

  const away = host();
  away.engine.down(true);
  const down = await away.probe.listeners();
  assert.equal(down.ok ? 'ok' : down.reason, 'engine_unreachable');

  const hung = host();
  hung.engine.program('tail', () => ({ exitCode: 0, runsMs: Number.POSITIVE_INFINITY }));
  assert.deepEqual(await hung.probe.listeners(), { ok: false, reason: 'timeout', message: 'the probe did not finish within 2000 ms' });
  assert.deepEqual(await hung.engine.listContainers(), [], 'the hung container is removed');
});
