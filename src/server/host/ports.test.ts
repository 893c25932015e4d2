import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContainerSummary } from '../engine/engine.ts';
import { holderOf, nextFreePort, parseProbeOutput, parseProcNetTable, publishedPorts } from './ports.ts';

// Real lines of a Debian host: sshd on 22 (v4 and v6), a resolver on 127.0.0.53:53, a web server on 127.0.0.1:8080 with one open connection.
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 20621 1 0000000000000000 100 0 0 10 0
   1: 3500007F:0035 00000000:0000 0A 00000000:00000000 00:00000000 00000000   101        0 19411 1 0000000000000000 100 0 0 10 5
   2: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 456255 1 000000009acaedd1 100 0 0 10 0
   3: 0100007F:A9A2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 456300 1 00000000fed824b4 20 4 30 10 -1
   4: 0100007F:A9B0 0100007F:9081 06 00000000:00000000 03:00000E12 00000000     0        0 0 3 00000000c1288a95
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 20623 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:0277 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 21010 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:1F91 0000000000000000FFFF00000100007F:D2C4 01 00000000:00000000 00:00000000 00000000  1000        0 77001 1 0000000000000000 20 4 30 10 -1
`;
const UDP = `   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  123: 3500007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000   101        0 19410 2 0000000000000000 0
  140: 00000000:0044 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 18200 2 0000000000000000 0
  141: 0A00020F:E1C4 08080808:0035 01 00000000:00000000 00:00000000 00000000  1000        0 90000 2 0000000000000000 0
`;
const UDP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
 1210: 00000000000000000000000000000000:14E9 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000   104        0 21500 2 0000000000000000 0
`;

test('tcp tables yield the listening ports only, IPv4 and IPv6 alike', () => {
  assert.deepEqual(
    [...parseProcNetTable(TCP, 'tcp')].sort((a, b) => a - b),
    [22, 53, 8080],
  );
  // 0x1F91 is an established connection on the v6 side, not a listener.
  assert.deepEqual(
    [...parseProcNetTable(TCP6, 'tcp6')].sort((a, b) => a - b),
    [22, 631],
  );
});

test('udp tables yield every bound port, whatever the state column says', () => {
  assert.deepEqual(
    [...parseProcNetTable(UDP, 'udp')].sort((a, b) => a - b),
    [53, 68, 57796],
  );
  assert.deepEqual([...parseProcNetTable(UDP6, 'udp6')], [5353]);
});

test('headers, blank lines and garbage are skipped', () => {
  assert.deepEqual([...parseProcNetTable('  sl  local_address\n\nnonsense here 0A\n  7: ZZ:0016 00000000:0000 0A\n', 'tcp')], []);
});

test('the probe output is split on its tail headers; a missing table is no failure, no table at all is', () => {
  const out = `==> /proc/net/tcp <==\n${TCP}\n==> /proc/net/tcp6 <==\n${TCP6}\n==> /proc/net/udp <==\n${UDP}`;
  const l = parseProbeOutput(out);
  assert.deepEqual(
    [...l.tcp].sort((a, b) => a - b),
    [22, 53, 631, 8080],
  );
  assert.deepEqual(
    [...l.udp].sort((a, b) => a - b),
    [53, 68, 57796],
  );
  assert.throws(() => parseProbeOutput(''), /no \/proc\/net table/);
  assert.throws(() => parseProbeOutput("tail: can't open /proc/net/tcp"), /no \/proc\/net table/);
});

const container = (name: string, ports: [number | null, number, string][]): ContainerSummary => ({
  id: name,
  name,
  image: 'x',
  state: 'running',
  status: 'Up',
  health: null,
  ports: ports.map(([host_port, container_port, protocol]) => ({ host_ip: host_port === null ? null : '0.0.0.0', host_port, container_port, protocol })),
  labels: {},
  project: null,
  service: null,
  workingDir: null,
  created: 0,
});

test('published ports name their container; unpublished ones are ignored', () => {
  const held = publishedPorts([
    container('web', [
      [8080, 80, 'tcp'],
      [null, 443, 'tcp'],
    ]),
    container('dns', [[53, 53, 'udp']]),
  ]);
  assert.deepEqual(
    [...held],
    [
      [8080, 'web'],
      [53, 'dns'],
    ],
  );
  const host = { tcp: new Set([22, 8080]), udp: new Set([5353]) };
  assert.deepEqual(holderOf(8080, held, host), { taken: true, by: 'web' });
  assert.deepEqual(holderOf(22, held, host), { taken: true, by: null });
  assert.deepEqual(holderOf(5353, held, host), { taken: true, by: null });
  assert.deepEqual(holderOf(2222, held, host), { taken: false, by: null });
  assert.deepEqual(holderOf(22, held, null), { taken: false, by: null }, 'without the host only containers count');
});

test('the alternative is the next free port above, within sixteen tries and 65535', () => {
  const taken = new Set([8080, 8081, 8082]);
  assert.equal(
    nextFreePort(8080, (p) => taken.has(p)),
    8083,
  );
  const block = (p: number) => p >= 9001 && p <= 9016;
  assert.equal(nextFreePort(9000, block), null, 'sixteen taken ports: no alternative');
  assert.equal(
    nextFreePort(9000, (p) => p >= 9001 && p <= 9015),
    9016,
    'the sixteenth try still counts',
  );
  assert.equal(
    nextFreePort(65535, () => false),
    null,
  );
  assert.equal(
    nextFreePort(65530, (p) => p < 65535),
    65535,
  );
});
