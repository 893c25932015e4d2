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
  assert.equal(aligned.usable, 64);
});

test('overlap with the host or the engine is an error, except the host LAN a macvlan network sits on', () => {
  const ctx = { hostNetworks: [{ name: 'eth0', subnet: '192.168.1.0/24' }], engineNetworks: [{ name: 'kade_default', subnet: '10.200.0.0/26' }] };
  assert.deepEqual(codes(reviewNetwork({ subnet: '192.168.1.0/25' }, ctx).errors), ['overlaps_host']);
  assert.deepEqual(codes(reviewNetwork({ subnet: '10.200.0.0/16' }, ctx).errors), ['overlaps_engine']);
  const mac = reviewNetwork({ subnet: '192.168.1.0/24', gateway: '192.168.1.1', range: '192.168.1.192/27', interface: 'eth0' }, ctx);
  assert.deepEqual(codes(mac.errors), []);
  assert.equal(mac.usable, 32);
  assert.equal(mac.first, '192.168.1.192');
  assert.equal(mac.last, '192.168.1.223');
  assert.deepEqual(codes(reviewNetwork({ subnet: '192.168.1.0/24', interface: 'eth1' }, ctx).errors), ['overlaps_host']);
});

test('the smallest networks: a /30 has two usable addresses, one with a gateway', () => {
  assert.equal(reviewNetwork({ subnet: '10.0.0.0/30', interface: 'eth9', range: '10.0.0.0/30' }, none).usable, 2);
  assert.equal(reviewNetwork({ subnet: '10.0.0.0/30' }, none).usable, 1);
  assert.equal(reviewNetwork({ subnet: '10.0.0.0/30', gateway: '10.0.0.1' }, none).usable, 1);
});
