import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StackMetaT } from '../store/stack-files.ts';
import { applyChoices, applySubnets, projectNetworks, serviceJoins } from './choices.ts';
import { adoptedOverride } from './connect.ts';

const meta = (services: StackMetaT['services'], networks: string[] = [], subnets?: Record<string, string>): StackMetaT => ({
  format: 1,
  source: null,
  values: {},
  value_types: {},
  secret_env: {},
  services,
  networks,
  ...(subnets ? { subnets } : {}),
  web: null,
  categories: [],
  template_version: null,
  installed_at: '2026-01-01T00:00:00.000Z',
});

test('the project networks Kade plans are its own bridges and the default one, never external or planned ones', () => {
  const doc = {
    services: {
      web: { image: 'a' },
      db: { image: 'b', networks: ['back'] },
      host: { image: 'c', network_mode: 'host' },
    },
    networks: {
      back: null,
      front: { driver: 'bridge' },
      lan: { external: true },
      planned: { ipam: { config: [{ subnet: '10.9.0.0/24' }] } },
      overlay: { driver: 'overlay' },
    },
  };
  assert.deepEqual(projectNetworks(doc), ['back', 'default', 'front']);
  assert.deepEqual(projectNetworks({ services: { x: { image: 'a', network_mode: 'host' } } }), []);
});

test('subnets go into the ipam block of each planned network, default included', () => {
  const doc: Record<string, unknown> = {
    services: { web: { image: 'a' }, db: { image: 'b', networks: { back: { aliases: ['d'] } } } },
    networks: { back: { driver: 'bridge' } },
  };
  applySubnets(doc, { default: '10.200.0.0/26', back: '10.200.0.64/26', gone: '10.200.0.128/26' });
  assert.deepEqual(doc.networks, {
    back: { driver: 'bridge', ipam: { config: [{ subnet: '10.200.0.64/26' }] } },
    default: { ipam: { config: [{ subnet: '10.200.0.0/26' }] } },
  });
});

test('a service joins its shared networks with its own address, and keeps the default network it had', () => {
  const doc: Record<string, unknown> = { services: { web: { image: 'a' }, db: { image: 'b', networks: ['back'] }, side: { image: 'c' } } };
  const m = meta({ web: { networks: { lan: { ip: '10.9.0.5' }, shared: {} } }, db: { networks: { shared: {} } } }, ['lan', 'shared']);
  applyChoices(doc, m);
  const services = doc.services as Record<string, { networks?: unknown }>;
  assert.deepEqual(services.web?.networks, { default: null, lan: { ipv4_address: '10.9.0.5' }, shared: null });
  assert.deepEqual(services.db?.networks, { back: null, shared: null });
  assert.equal(services.side?.networks, undefined);
  assert.deepEqual(doc.networks, { lan: { external: true }, shared: { external: true } });
});

test('the older format (shared_network and ip) reads as joins of every chosen network, the address on the first', () => {
  const m = meta({ web: { shared_network: true, ip: '10.9.0.7' }, db: {} }, ['lan', 'shared']);
  assert.deepEqual(serviceJoins(m, 'web'), { lan: { ip: '10.9.0.7' }, shared: {} });
  assert.deepEqual(serviceJoins(m, 'db'), {});
});

test("an adopted app's override keeps the implicit default network and the file's version", () => {
  const doc = { version: '3.8', services: { web: { image: 'a' }, db: { image: 'b', networks: ['back'] }, h: { image: 'c', network_mode: 'host' } } };
  const text = adoptedOverride(
    doc,
    meta({ web: { networks: { lan: {} } }, db: { networks: { lan: { ip: '10.9.0.9' } } }, h: { networks: { lan: {} } } }, ['lan']),
  );
  assert.ok(text);
  assert.match(text, /^# Written by Kade/);
  assert.match(text, /version: "3.8"/);
  assert.match(text, /web:\n\s+networks:\n\s+default: \{\}\n\s+lan: \{\}/);
  assert.match(text, /db:\n\s+networks:\n\s+lan:\n\s+ipv4_address: 10.9.0.9/);
  assert.doesNotMatch(text, /\bh:/);
  assert.equal(adoptedOverride(doc, meta({ web: {} })), null);
});
