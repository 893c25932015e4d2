import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { stubBrowserGlobals } from '../../../test/helpers/browser-globals.ts';
import { addressProblems } from '../../server/networks/networks.service.ts';
import { parseIPv4 } from '../../shared/cidr.ts';
import { type ReviewContext, type ReviewInput, reviewNetwork } from '../../shared/network-review.ts';
import type { NetworkProblemT } from '../../shared/networks.ts';
import { en } from '../messages/en.ts';
import { nl } from '../messages/nl.ts';

// Every finding of the network review and the address check has a sentence in nl and en whose
// placeholders the finding's params fill. The review's findings come from the shared review itself;
// those of the address check from the server's own rules where they are a function of their own.

const tokens = (s: string) => [...new Set([...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string))].sort();
const EN: Record<string, string> = en;
const NL: Record<string, string> = nl;

let problemText: (p: NetworkProblemT) => string;
let setLang: (l: 'nl' | 'en') => void;
before(async () => {
  stubBrowserGlobals();
  ({ problemText } = await import('./network-problems.ts'));
  ({ setLang } = await import('../i18n.ts'));
});

const NONE: ReviewContext = { hostNetworks: [], engineNetworks: [] };
const SUB = '10.1.2.0/24';

function reviewed(code: string, input: ReviewInput, ctx: ReviewContext = NONE): NetworkProblemT {
  const r = reviewNetwork(input, ctx);
  const found = [...r.errors, ...r.warnings].find((p) => p.code === code);
  assert.ok(found, `${code} from ${JSON.stringify(input)}: ${JSON.stringify(r)}`);
  return found;
}

const address = (code: string, ip: string, plan: { subnet: string; range: string | null; gateway: string | null }): NetworkProblemT => {
  const found = addressProblems(ip, parseIPv4(ip) ?? -1, plan).find((p) => p.code === code);
  assert.ok(found, `${code} for ${ip}`);
  return found;
};

const PLAN = { subnet: SUB, range: '10.1.2.128/25', gateway: '10.1.2.1' };

/** Each finding with the key it is shown with. */
const samples = (): [string, NetworkProblemT][] => [
  ['subnet_missing', reviewed('subnet_invalid', {})],
  ['subnet_invalid', reviewed('subnet_invalid', { subnet: 'abc' })],
  ['subnet_normalised', reviewed('subnet_normalised', { subnet: '10.1.2.3/24' })],
  ['subnet_too_small', reviewed('subnet_too_small', { subnet: '10.1.2.0/31' })],
  ['subnet_reserved_this_network', reviewed('subnet_reserved', { subnet: '0.0.0.0/8' })],
  ['subnet_reserved_loopback', reviewed('subnet_reserved', { subnet: '127.0.0.0/8' })],
  ['subnet_reserved_link_local', reviewed('subnet_reserved', { subnet: '169.254.0.0/16' })],
  ['subnet_reserved_multicast', reviewed('subnet_reserved', { subnet: '224.0.0.0/4' })],
  ['subnet_reserved_reserved', reviewed('subnet_reserved', { subnet: '240.0.0.0/4' })],
  ['range_invalid', reviewed('range_invalid', { subnet: SUB, range: 'x' })],
  ['range_normalised', reviewed('range_normalised', { subnet: SUB, range: '10.1.2.130/25' })],
  ['range_outside_subnet', reviewed('range_outside_subnet', { subnet: SUB, range: '10.9.0.0/25' })],
  ['range_not_aligned', reviewed('range_not_aligned', { subnet: SUB, range: '10.1.2.100-10.1.2.150' })],
  ['gateway_invalid', reviewed('gateway_invalid', { subnet: SUB, gateway: 'x' })],
  ['gateway_outside_subnet', reviewed('gateway_outside_subnet', { subnet: SUB, gateway: '10.9.9.9' })],
  ['gateway_reserved_network', reviewed('gateway_reserved', { subnet: SUB, gateway: '10.1.2.0' })],
  ['gateway_reserved_broadcast', reviewed('gateway_reserved', { subnet: SUB, gateway: '10.1.2.255' })],
  ['gateway_in_range', reviewed('gateway_in_range', { subnet: SUB, gateway: '10.1.2.200', range: '10.1.2.128/25' })],
  ['range_large', reviewed('range_large', { subnet: '10.0.0.0/16' })],
  ['overlaps_host', reviewed('overlaps_host', { subnet: SUB }, { hostNetworks: [{ name: 'eth0', subnet: '10.1.0.0/16' }], engineNetworks: [] })],
  ['overlaps_engine', reviewed('overlaps_engine', { subnet: SUB }, { hostNetworks: [], engineNetworks: [{ name: 'lan', subnet: '10.1.2.0/25' }] })],
  ['interface_invalid', reviewed('interface_invalid', { subnet: SUB, interface: '-bad' })],
  ['range_recommended', reviewed('range_recommended', { subnet: SUB, interface: 'eth0' })],
  ['outside_subnet', address('outside_subnet', '10.9.9.9', PLAN)],
  ['outside_range', address('outside_range', '10.1.2.20', PLAN)],
  ['gateway', address('gateway', '10.1.2.1', { ...PLAN, range: null })],
  ['network_address', address('network_address', '10.1.2.0', { ...PLAN, range: null })],
  ['broadcast_address', address('broadcast_address', '10.1.2.255', PLAN)],
  ['range_first', address('range_first', '10.1.2.128', PLAN)],
  // Made inline in the service's ip-check (networks.service.ts), with these params.
  ['in_use_engine', { code: 'in_use_engine', message: 'x', params: { ip: '10.1.2.130', container: 'web-1' } }],
  ['in_use_host_arp', { code: 'in_use_host_arp', message: 'x', params: { ip: '10.1.2.130', mac: '02:00:00:00:00:01', iface: 'eth0' } }],
  ['invalid_ip', { code: 'invalid_ip', message: 'x', params: { ip: 'abc' } }],
  ['no_subnet', { code: 'no_subnet', message: 'x', params: { network: 'lan' } }],
];

test('every finding has a sentence in nl and en, filled from its own params', () => {
  for (const [variant, p] of samples()) {
    const key = `netcheck.${variant}`;
    for (const [lang, table] of [
      ['en', EN],
      ['nl', NL],
    ] as const) {
      const text = table[key];
      assert.ok(text, `${lang} ${key}`);
      const missing = tokens(text).filter((name) => p.params[name] === undefined);
      assert.deepEqual(missing, [], `${lang} ${key} uses placeholders the finding does not give`);
      setLang(lang);
      assert.doesNotMatch(problemText(p), /\{\w+\}/, `${lang} ${key}`);
    }
  }
});

test('every netcheck sentence is one a finding leads to', () => {
  const used = new Set(samples().map(([v]) => `netcheck.${v}`));
  assert.deepEqual(
    Object.keys(EN).filter((k) => k.startsWith('netcheck.') && !used.has(k)),
    [],
  );
});

test('the sentence is translated with the params; an unknown code falls back to the server’s English', () => {
  setLang('nl');
  assert.equal(
    problemText({ code: 'subnet_normalised', message: 'x', params: { input: '10.1.2.3/24', cidr: '10.1.2.0/24' } }),
    'In 10.1.2.3/24 staan hostbits: het wordt gelezen als 10.1.2.0/24.',
  );
  setLang('en');
  assert.equal(
    problemText({ code: 'gateway_reserved', message: 'x', params: { gateway: '10.1.2.255', which: 'broadcast' } }),
    'Gateway 10.1.2.255 is the broadcast address of the network.',
  );
  assert.equal(problemText({ code: 'some_new_rule', message: 'The server says why.', params: {} }), 'The server says why.');
});
