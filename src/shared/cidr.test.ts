import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  contains,
  firstAddress,
  formatIPv4,
  isAligned,
  lastAddress,
  normaliseCidr,
  overlaps,
  PROPOSAL_STEPS,
  parseCidr,
  parseIPv4,
  proposeFree,
  rangeBlocks,
  usableCount,
} from './cidr.ts';

const ip = (s: string) => parseIPv4(s) as number;

test('addresses are strict dotted quads', () => {
  assert.equal(parseIPv4('192.168.1.20'), 0xc0a80114);
  assert.equal(formatIPv4(0xc0a80114), '192.168.1.20');
  assert.equal(parseIPv4('0.0.0.0'), 0);
  assert.equal(parseIPv4('255.255.255.255'), 0xffffffff);
  for (const bad of ['192.168.1', '192.168.1.256', '192.168.01.1', '1.2.3.4.5', ' 1.2.3.4', '1.2.3.-4', '0x1.2.3.4', '', '1..2.3']) {
    assert.equal(parseIPv4(bad), null, bad);
  }
});

test('a block needs a prefix from 0 to 32; a bare address is not one', () => {
  assert.deepEqual(parseCidr('10.0.0.0/8'), { ip: 0x0a000000, prefix: 8 });
  for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/-1', '10.0.0.0/08', '10.0.0/8', '10.0.0.0/8/8']) assert.equal(parseCidr(bad), null, bad);
});

test('host bits are cleared and said to be', () => {
  assert.deepEqual(normaliseCidr('192.168.1.77/24'), { cidr: '192.168.1.0/24', changed: true, base: ip('192.168.1.0'), prefix: 24 });
  assert.equal(normaliseCidr('192.168.1.0/24')?.changed, false);
  assert.equal(normaliseCidr('10.1.2.3/8')?.cidr, '10.0.0.0/8');
  assert.equal(normaliseCidr('10.1.2.3/32')?.cidr, '10.1.2.3/32');
  assert.equal(normaliseCidr('10.1.2.3/0')?.cidr, '0.0.0.0/0');
  assert.equal(normaliseCidr('10.1.2.3/31')?.cidr, '10.1.2.2/31');
});

test('first, last, contains and overlaps follow the block, not the typed host bits', () => {
  assert.equal(firstAddress('192.168.1.77/26'), '192.168.1.64');
  assert.equal(lastAddress('192.168.1.77/26'), '192.168.1.127');
  assert.equal(contains('192.168.1.77/26', '192.168.1.64'), true);
  assert.equal(contains('192.168.1.77/26', '192.168.1.128'), false);
  assert.equal(contains('192.168.1.0/24', 'nonsense'), false);
  assert.equal(overlaps('10.0.0.0/8', '10.200.0.0/26'), true);
  assert.equal(overlaps('10.200.0.0/26', '10.200.0.64/26'), false);
  assert.equal(overlaps('0.0.0.0/0', '1.2.3.4/32'), true);
});

test('usable addresses: /31 and /32 have no network or broadcast address', () => {
  assert.equal(usableCount('10.0.0.1/32'), 1);
  assert.equal(usableCount('10.0.0.0/31'), 2);
  assert.equal(usableCount('10.0.0.0/30'), 2);
  assert.equal(usableCount('10.0.0.0/24'), 254);
  assert.equal(usableCount('10.0.0.0/16'), 65534);
  assert.equal(usableCount('nonsense'), 0);
});

test('alignment: a span is one block only at a multiple of its power-of-two size', () => {
  assert.equal(isAligned(ip('10.0.0.0'), ip('10.0.0.255')), true);
  assert.equal(isAligned(ip('10.0.0.128'), ip('10.0.0.191')), true);
  assert.equal(isAligned(ip('10.0.0.64'), ip('10.0.0.191')), false);
  assert.equal(isAligned(ip('10.0.0.1'), ip('10.0.0.2')), false);
  assert.equal(isAligned(ip('10.0.0.0'), ip('10.0.0.99')), false);
  assert.equal(isAligned(ip('10.0.0.5'), ip('10.0.0.5')), true);
});

test('ruim and krap on many wishes', () => {
  const cases: [string, string, string, number, string, number][] = [
    // from, to, ruim, gained, krap, missing
    ['192.168.1.10', '192.168.1.10', '192.168.1.10/32', 0, '192.168.1.10/32', 0],
    ['192.168.1.0', '192.168.1.255', '192.168.1.0/24', 0, '192.168.1.0/24', 0],
    ['10.20.0.0', '10.20.255.255', '10.20.0.0/16', 0, '10.20.0.0/16', 0],
    ['192.168.1.100', '192.168.1.200', '192.168.1.0/24', 155, '192.168.1.128/26', 37],
    ['192.168.1.127', '192.168.1.128', '192.168.1.0/24', 254, '192.168.1.127/32', 1],
    ['192.168.1.200', '192.168.1.100', '192.168.1.0/24', 155, '192.168.1.128/26', 37],
    ['10.0.0.1', '10.0.0.6', '10.0.0.0/29', 2, '10.0.0.2/31', 4],
    ['10.0.0.4', '10.0.0.7', '10.0.0.4/30', 0, '10.0.0.4/30', 0],
    ['0.0.0.0', '255.255.255.255', '0.0.0.0/0', 0, '0.0.0.0/0', 0],
    ['0.0.0.1', '255.255.255.255', '0.0.0.0/0', 1, '128.0.0.0/1', 2 ** 31 - 1],
  ];
  for (const [from, to, ruim, gained, krap, missing] of cases) {
    const r = rangeBlocks(from, to);
    assert.ok(r, `${from}-${to}`);
    assert.equal(r.ruim.cidr, ruim, `ruim of ${from}-${to}`);
    assert.equal(r.ruim.gained, gained, `gained of ${from}-${to}`);
    assert.equal(r.krap.cidr, krap, `krap of ${from}-${to}`);
    assert.equal(r.krap.missing, missing, `missing of ${from}-${to}`);
    assert.equal(r.ruim.addresses, 2 ** (32 - Number(ruim.split('/')[1])));
    assert.equal(r.krap.addresses, 2 ** (32 - Number(krap.split('/')[1])));
    // ruim holds the whole wish and krap lies inside it.
    assert.ok(contains(ruim, from) && contains(ruim, to));
    const [lo, hi] = [Math.min(ip(from), ip(to)), Math.max(ip(from), ip(to))];
    assert.ok(ip(firstAddress(krap) as string) >= lo && ip(lastAddress(krap) as string) <= hi);
  }
  assert.equal(rangeBlocks('10.0.0.1', '10.0.0.256'), null);
});

test('a proposal is free, never the network, broadcast or gateway address, and found within sixteen steps', () => {
  const none = new Set<number>();
  assert.deepEqual(proposeFree({ subnet: '10.0.0.0/24', taken: none }), { ip: '10.0.0.1', steps: 2 });
  assert.equal(proposeFree({ subnet: '10.0.0.0/24', gateway: '10.0.0.1', taken: none }).ip, '10.0.0.2');
  assert.equal(proposeFree({ subnet: '10.0.0.0/24', range: '10.0.0.128/25', taken: none }).ip, '10.0.0.129', 'the engine keeps the first address of a range');
  // Near the wished address, walking outward.
  const taken = new Set([ip('10.0.0.50'), ip('10.0.0.51')]);
  assert.deepEqual(proposeFree({ subnet: '10.0.0.0/24', taken, near: ip('10.0.0.50') }), { ip: '10.0.0.49', steps: 3 });
  // Near the top of the block: never the broadcast address.
  assert.equal(proposeFree({ subnet: '10.0.0.0/24', taken: new Set([ip('10.0.0.254')]), near: ip('10.0.0.254') }).ip, '10.0.0.253');
  // A wish outside the range starts at the range.
  assert.equal(proposeFree({ subnet: '10.0.0.0/24', range: '10.0.0.64/26', taken: none, near: ip('10.0.0.5') }).ip, '10.0.0.65');
  // All taken: nothing within the bound, and the bound is kept.
  const full = new Set(Array.from({ length: 256 }, (_, i) => ip('10.0.0.0') + i));
  assert.deepEqual(proposeFree({ subnet: '10.0.0.0/24', taken: full, near: ip('10.0.0.100') }), { ip: null, steps: PROPOSAL_STEPS });
  // A block of 64 taken but for its last free address: beyond sixteen steps it is not found.
  const most = new Set(Array.from({ length: 62 }, (_, i) => ip('10.0.1.1') + i));
  assert.equal(proposeFree({ subnet: '10.0.1.0/26', taken: most, near: ip('10.0.1.1') }).ip, null);
  // A tiny block: the /32 itself.
  assert.equal(proposeFree({ subnet: '10.0.2.7/32', taken: none }).ip, '10.0.2.7');
});

test('ruim and krap agree with a search of every aligned block, for every pair of addresses in a /26', () => {
  const base = ip('10.9.8.0');
  // Every aligned block of 10.9.8.0/26, largest first, lowest first among equals.
  const blocks: { first: number; last: number; cidr: string }[] = [];
  for (let prefix = 26; prefix <= 32; prefix++) {
    const size = 2 ** (32 - prefix);
    for (let at = 0; at < 64; at += size) blocks.push({ first: base + at, last: base + at + size - 1, cidr: `${formatIPv4(base + at)}/${prefix}` });
  }
  let pairs = 0;
  for (let a = 0; a < 64; a++) {
    for (let b = 0; b < 64; b++) {
      const [lo, hi] = [base + Math.min(a, b), base + Math.max(a, b)];
      const r = rangeBlocks(formatIPv4(base + a), formatIPv4(base + b));
      assert.ok(r);
      const holding = blocks.filter((x) => x.first <= lo && x.last >= hi);
      const smallest = holding[holding.length - 1];
      const inside = blocks.find((x) => x.first >= lo && x.last <= hi);
      assert.equal(r.ruim.cidr, smallest?.cidr, `ruim of ${a}-${b}`);
      assert.equal(r.krap.cidr, inside?.cidr, `krap of ${a}-${b}`);
      assert.equal(r.ruim.gained, r.ruim.addresses - (hi - lo + 1));
      assert.equal(r.krap.missing, hi - lo + 1 - r.krap.addresses);
      assert.equal(isAligned(lo, hi), r.ruim.gained === 0 && r.krap.missing === 0, `aligned ${a}-${b}`);
      pairs++;
    }
  }
  assert.equal(pairs, 4096);
});

test('ruim and krap across block boundaries far apart', () => {
  const r = rangeBlocks('10.255.255.255', '11.0.0.0');
  assert.deepEqual(r, {
    ruim: { cidr: '10.0.0.0/7', addresses: 2 ** 25, gained: 2 ** 25 - 2 },
    krap: { cidr: '10.255.255.255/32', addresses: 1, missing: 1 },
  });
  const lan = rangeBlocks('192.168.0.1', '192.168.3.254');
  assert.equal(lan?.ruim.cidr, '192.168.0.0/22');
  assert.equal(lan?.krap.cidr, '192.168.1.0/24');
  assert.equal(lan?.krap.missing, 1022 - 256);
  assert.equal(rangeBlocks('10.0.0.1', '10.0.0.1/32'), null);
  assert.equal(rangeBlocks('', '10.0.0.1'), null);
});

test('a proposal walks outward from the wished address in the order near, near+1, near-1, near+2, ...', () => {
  const at = (s: string) => ip(`10.0.3.${s}`);
  const busy = new Set([100, 101, 99, 102, 98, 103].map((n) => at(String(n))));
  assert.deepEqual(proposeFree({ subnet: '10.0.3.0/24', taken: busy, near: at('100') }), { ip: '10.0.3.97', steps: 7 });
  busy.delete(at('103'));
  assert.deepEqual(proposeFree({ subnet: '10.0.3.0/24', taken: busy, near: at('100') }), { ip: '10.0.3.103', steps: 6 });
  // The wished address is the gateway: the next one is proposed.
  assert.deepEqual(proposeFree({ subnet: '10.0.3.0/24', gateway: '10.0.3.1', taken: new Set(), near: at('1') }), { ip: '10.0.3.2', steps: 2 });
  // Against the low edge of the range the walk goes on upward only, and every step is one candidate.
  const low = new Set([64, 65, 66, 67, 68].map((n) => at(String(n))));
  assert.deepEqual(proposeFree({ subnet: '10.0.3.0/24', range: '10.0.3.64/26', taken: low, near: at('64') }), { ip: '10.0.3.69', steps: 6 });
});

test('a proposal in a fully taken small range stops when the range is spent', () => {
  const range = new Set([ip('10.0.4.8'), ip('10.0.4.9'), ip('10.0.4.10'), ip('10.0.4.11')]);
  assert.deepEqual(proposeFree({ subnet: '10.0.4.0/24', range: '10.0.4.8/30', taken: range, near: ip('10.0.4.9') }), { ip: null, steps: 4 });
  assert.deepEqual(proposeFree({ subnet: 'nonsense', taken: new Set() }), { ip: null, steps: 0 });
});

test('whatever is taken, a proposal is free, inside the range, not reserved, and takes at most sixteen steps', () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const sub = ip('10.0.5.0');
  for (let round = 0; round < 500; round++) {
    const taken = new Set<number>();
    const density = random();
    for (let n = 0; n < 64; n++) if (random() < density) taken.add(sub + n);
    const near = sub + Math.floor(random() * 80) - 8;
    const r = proposeFree({ subnet: '10.0.5.0/26', gateway: '10.0.5.1', taken, near });
    assert.ok(r.steps >= 1 && r.steps <= PROPOSAL_STEPS);
    if (r.ip === null) {
      assert.equal(r.steps, PROPOSAL_STEPS, 'a /26 always has sixteen candidates to examine');
      continue;
    }
    const n = ip(r.ip);
    assert.ok(contains('10.0.5.0/26', r.ip));
    assert.ok(!taken.has(n) && n !== sub && n !== sub + 63 && n !== sub + 1, `${r.ip} is not free`);
  }
});
