import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reviewNetwork } from './network-review.ts';

const none = { hostNetworks: [], engineNetworks: [] };
const codes = (list: { code: string }[]) => list.map((p) => p.code);

test('a clean subnet: usable count, first and last (the engine takes .1 as the bridge gateway), no problems', () => {
  const r = reviewNetwork({ subnet: '10.251.7.0/24' }, none);
  assert.deepEqual(r, {
    ok: true,
    usable: 253,
    first: '10.251.7.2',
    last: '10.251.7.254',
    normalised: { subnet: '10.251.7.0/24', range: null },
    errors: [],
    warnings: [],
  });
});

test('host bits are a warning that says what was made of the input; a gateway inside counts against usable', () => {
  const r = reviewNetwork({ subnet: '10.251.7.77/24', gateway: '10.251.7.1' }, none);
  assert.equal(r.ok, true);
  assert.equal(r.normalised.subnet, '10.251.7.0/24');
  assert.deepEqual(codes(r.warnings), ['subnet_normalised']);
  assert.match(r.warnings[0]?.message ?? '', /10\.251\.7\.77\/24 was read as 10\.251\.7\.0\/24/);
  assert.equal(r.usable, 253);
  assert.equal(r.first, '10.251.7.2');
});

test('errors block, warnings do not', () => {
  const cases: [Record<string, string>, string[], string[]][] = [
    [{}, ['subnet_invalid'], []],
    [{ subnet: '10.0.0.0' }, ['subnet_invalid'], []],
    [{ subnet: '10.0.0.0/31' }, ['subnet_too_small'], []],
    [{ subnet: '10.0.0.0/24', range: '10.0.0.0/33' }, ['range_invalid'], []],
    [{ subnet: '10.0.0.0/24', range: '10.0.1.0/26' }, ['range_outside_subnet'], []],
    [{ subnet: '10.0.0.0/24', range: '10.0.0.100-10.0.0.200' }, ['range_not_aligned'], []],
    [{ subnet: '10.0.0.0/24', range: '10.0.0.130/26' }, [], ['range_normalised']],
    [{ subnet: '10.0.0.0/24', gateway: '10.0.0' }, ['gateway_invalid'], []],
    [{ subnet: '10.0.0.0/24', gateway: '10.0.1.1' }, ['gateway_outside_subnet'], []],
    [{ subnet: '10.0.0.0/24', gateway: '10.0.0.255' }, ['gateway_reserved'], []],
    [{ subnet: '10.0.0.0/24', gateway: '10.0.0.0' }, ['gateway_reserved'], []],
    [{ subnet: '10.0.0.0/24', range: '10.0.0.0/25', gateway: '10.0.0.5' }, [], ['gateway_in_range']],
    [{ subnet: '10.0.0.0/16' }, [], ['range_large']],
    [{ subnet: '10.0.0.0/16', range: '10.0.1.0/24' }, [], []],
    [{ subnet: '10.0.0.0/24', interface: 'eth0; rm' }, ['interface_invalid'], ['range_recommended']],
  ];
  for (const [input, errors, warnings] of cases) {
    const r = reviewNetwork(input, none);
    assert.deepEqual(codes(r.errors), errors, JSON.stringify(input));
    assert.deepEqual(codes(r.warnings), warnings, JSON.stringify(input));
    assert.equal(r.ok, errors.length === 0);
    for (const p of [...r.errors, ...r.warnings]) assert.ok(p.message.length > 10, 'every problem says something in plain words');
  }
});

test('a non-aligned from-to range names both blocks that would do', () => {
  const r = reviewNetwork({ subnet: '10.0.0.0/24', range: '10.0.0.100 - 10.0.0.200' }, none);
  assert.equal(r.errors[0]?.params.ruim, '10.0.0.0/24');
  assert.equal(r.errors[0]?.params.krap, '10.0.0.128/26');
  const aligned = reviewNetwork({ subnet: '10.0.0.0/24', range: '10.0.0.128-10.0.0.191' }, none);
  assert.equal(aligned.normalised.range, '10.0.0.128/26');
  assert.equal(aligned.usable, 63);
});

test('overlap with the host or the engine is an error, except the host LAN a macvlan network sits on', () => {
  const ctx = { hostNetworks: [{ name: 'eth0', subnet: '192.168.1.0/24' }], engineNetworks: [{ name: 'kade_default', subnet: '10.200.0.0/26' }] };
  assert.deepEqual(codes(reviewNetwork({ subnet: '192.168.1.0/25' }, ctx).errors), ['overlaps_host']);
  assert.deepEqual(codes(reviewNetwork({ subnet: '10.200.0.0/16' }, ctx).errors), ['overlaps_engine']);
  const mac = reviewNetwork({ subnet: '192.168.1.0/24', gateway: '192.168.1.1', range: '192.168.1.192/27', interface: 'eth0' }, ctx);
  assert.deepEqual(codes(mac.errors), []);
  assert.equal(mac.usable, 31);
  assert.equal(mac.first, '192.168.1.193');
  assert.equal(mac.last, '192.168.1.223');
  assert.deepEqual(codes(reviewNetwork({ subnet: '192.168.1.0/24', interface: 'eth1' }, ctx).errors), ['overlaps_host']);
});

test('the smallest networks: a /30 has two usable addresses, one with a gateway', () => {
  assert.equal(reviewNetwork({ subnet: '10.0.0.0/30', interface: 'eth9', range: '10.0.0.0/30' }, none).usable, 2);
  assert.equal(reviewNetwork({ subnet: '10.0.0.0/30' }, none).usable, 1);
  assert.equal(reviewNetwork({ subnet: '10.0.0.0/30', gateway: '10.0.0.1' }, none).usable, 1);
});

test('every problem carries params and names its values', () => {
  const ctx = { hostNetworks: [{ name: 'eth0', subnet: '192.168.1.0/24' }], engineNetworks: [{ name: 'kade_default', subnet: '10.200.0.0/26' }] };
  const host = reviewNetwork({ subnet: '192.168.1.0/25' }, ctx).errors[0];
  assert.match(host?.message ?? '', /eth0/);
  assert.equal(host?.params.name, 'eth0');
  const engine = reviewNetwork({ subnet: '10.200.0.0/16' }, ctx).errors[0];
  assert.match(engine?.message ?? '', /kade_default/);
  assert.equal(engine?.params.other, '10.200.0.0/26');
  const gw = reviewNetwork({ subnet: '10.0.0.0/24', gateway: '10.0.0.255' }, none).errors[0];
  assert.equal(gw?.params.which, 'broadcast');
  assert.match(gw?.message ?? '', /10\.0\.0\.255/);
});

test('the large-range warning counts the range when there is one, and only above 4096 addresses', () => {
  assert.deepEqual(codes(reviewNetwork({ subnet: '10.0.0.0/20' }, none).warnings), []);
  assert.deepEqual(codes(reviewNetwork({ subnet: '10.0.0.0/19' }, none).warnings), ['range_large']);
  const wide = reviewNetwork({ subnet: '10.0.0.0/16', range: '10.0.32.0/19' }, none);
  assert.deepEqual(codes(wide.warnings), ['range_large']);
  assert.equal(wide.warnings[0]?.params.addresses, 8192);
  assert.deepEqual(codes(reviewNetwork({ subnet: '10.0.0.0/16', range: '10.0.32.0/20' }, none).warnings), []);
});

test('a from-to range: aligned is read as its block, bad addresses are invalid, either order', () => {
  const r = reviewNetwork({ subnet: '10.0.0.0/24', range: '10.0.0.191-10.0.0.128' }, none);
  assert.equal(r.normalised.range, '10.0.0.128/26');
  assert.deepEqual(codes(r.warnings), ['range_normalised']);
  assert.deepEqual(codes(reviewNetwork({ subnet: '10.0.0.0/24', range: '10.0.0.1-10.0.0.300' }, none).errors), ['range_invalid']);
  assert.deepEqual(codes(reviewNetwork({ subnet: '10.0.0.0/24', range: '10.0.0.127-10.0.0.128' }, none).errors), ['range_not_aligned']);
  assert.deepEqual(codes(reviewNetwork({ subnet: '10.0.0.0/24', range: '10.0.1.0-10.0.1.63' }, none).errors), ['range_outside_subnet']);
});

test('a macvlan network on its LAN: no overlap error, but a range is recommended when missing', () => {
  const ctx = { hostNetworks: [{ name: 'eth0', subnet: '192.168.1.0/24' }], engineNetworks: [] };
  const r = reviewNetwork({ subnet: '192.168.1.0/24', gateway: '192.168.1.1', interface: 'eth0' }, ctx);
  assert.equal(r.ok, true);
  assert.deepEqual(codes(r.warnings), ['range_recommended']);
  assert.equal(r.usable, 253);
  assert.equal(r.warnings[0]?.params.interface, 'eth0');
});

test('a range that only holds reserved addresses leaves nothing usable', () => {
  const r = reviewNetwork({ subnet: '10.0.0.0/29', gateway: '10.0.0.1', range: '10.0.0.0/31' }, none);
  assert.equal(r.ok, true);
  assert.equal(r.usable, 0);
  assert.equal(r.first, null);
  assert.equal(r.last, null);
});
