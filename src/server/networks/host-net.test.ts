import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatIPv4 } from '../../shared/cidr.ts';
import { detectHostNetwork, parseArp, parseLocalAddresses, parseRoutes, suggestRange } from './host-net.ts';

// Copied from a Debian host: a LAN on eth0 behind 192.0.2.1, the engine's bridge on docker0.
const ROUTE = `Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT
eth0	00000000	010200C0	0003	0	0	0	00000000	0	0	0
docker0	0000D50A	00000000	0001	0	0	0	00FFFFFF	0	0	0
eth0	000200C0	00000000	0001	0	0	0	00FFFFFF	0	0	0
`;
const ARP = `IP address       HW type     Flags       HW address            Mask     Device
192.0.2.1        0x1         0x2         02:fc:00:00:00:05     *        eth0
192.0.2.250      0x1         0x2         02:fc:00:00:00:fa     *        eth0
192.0.2.9        0x1         0x0         00:00:00:00:00:00     *        eth0
`;
const FIB = `Main:
  +-- 0.0.0.0/0 3 0 5
     +-- 10.213.0.0/24 2 0 2
              |-- 10.213.0.1
                 /32 host LOCAL
     +-- 192.0.2.0/24 2 0 2
           |-- 192.0.2.0
              /24 link UNICAST
           |-- 192.0.2.2
              /32 host LOCAL
        |-- 192.0.2.255
           /32 link BROADCAST
`;

test('routes are read from the little-endian hex of /proc/net/route', () => {
  assert.deepEqual(parseRoutes(ROUTE), [
    { iface: 'eth0', dest: 0, gateway: 0xc0000201, prefix: 0 },
    { iface: 'docker0', dest: 0x0ad50000, gateway: 0, prefix: 24 },
    { iface: 'eth0', dest: 0xc0000200, gateway: 0, prefix: 24 },
  ]);
});

test('only answered neighbours count, and the local addresses are the /32 host LOCAL leaves', () => {
  assert.deepEqual(
    parseArp(ARP).map((n) => n.ip),
    ['192.0.2.1', '192.0.2.250'],
  );
  assert.deepEqual([...parseLocalAddresses(FIB)].sort(), ['10.213.0.1', '192.0.2.2']);
});

test('the host network is the default route’s link, with a free range clear of the gateway, host and neighbours', () => {
  const host = detectHostNetwork({ route: ROUTE, arp: ARP, fibTrie: FIB }, []);
  // 192.0.2.224/27 holds the neighbour .250, so the next block down is suggested.
  assert.deepEqual(host, {
    interface: 'eth0',
    address: '192.0.2.2',
    subnet: '192.0.2.0/24',
    gateway: '192.0.2.1',
    suggested_range: '192.0.2.192/27',
    added: false,
  });
  assert.equal(detectHostNetwork({ route: ROUTE, arp: ARP, fibTrie: FIB }, [{ subnet: null, interface: 'eth0' }])?.added, true);
  assert.equal(detectHostNetwork({ route: ROUTE, arp: ARP, fibTrie: FIB }, [{ subnet: '192.0.2.0/24', interface: null }])?.added, true);
});

test('no default route, or only one through the engine’s bridge, is no host network', () => {
  const noDefault = ROUTE.split('\n')
    .filter((l) => !l.includes('010200C0'))
    .join('\n');
  assert.equal(detectHostNetwork({ route: noDefault, arp: '', fibTrie: '' }, []), null);
  const viaBridge =
    'Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\ndocker0\t00000000\t0100D50A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n';
  assert.equal(detectHostNetwork({ route: viaBridge, arp: '', fibTrie: '' }, []), null);
});

test('the suggested range is searched at most 16 blocks deep (SPEC Limits): a /8 full of neighbours costs 16 steps', () => {
  // A /8 LAN on eth0 behind 10.0.0.1; a neighbour in each of the top `full` blocks of 64 addresses.
  const route = `Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT
eth0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\t0\t0\t0
eth0\t0000000A\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0
`;
  const top = 0x0affffc0; // 10.255.255.192, the start of the highest block of 64
  const arp = (full: number) =>
    `IP address       HW type     Flags       HW address            Mask     Device\n${Array.from(
      { length: full },
      (_, i) => `${formatIPv4(top - i * 64 + 5)}  0x1  0x2  02:fc:00:00:00:${(i + 16).toString(16)}  *  eth0`,
    ).join('\n')}\n`;
  const suggested = (full: number) => detectHostNetwork({ route, arp: arp(full), fibTrie: '' }, [])?.suggested_range;
  assert.equal(suggested(0), '10.255.255.192/26');
  assert.equal(suggested(15), `${formatIPv4(top - 15 * 64)}/26`, 'the 16th block is the last one looked at');
  assert.equal(suggested(16), null, 'no 17th step, however much of the /8 is left');
  const taken = new Set(Array.from({ length: 5000 }, (_, i) => top - i * 64 + 5));
  assert.deepEqual(suggestRange(0x0a000000, 8, taken), { range: null, steps: 16 });
});
