// Issue 26, class 5: what the real Cosmos store writes that compose does not read as it stands (fixture
// test/fixtures/import/cosmos/torrent): a block inside one entry, ports listed twice, `links` as a map, `depends_on`
// without a condition, keys in Go's casing, a picked container by `{Context.<field>-name}`, and a key set twice.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { allFields } from '../../templates/render.ts';
import { importCosmos } from './cosmos.ts';
import { parseCosmos } from './cosmos-whiskers.ts';
import { emitCompose, lit, map, seq } from './portainer-emit.ts';
import { composeProblem, lintErrors, renderDefaults } from './portainer-render-check.ts';

const FIXTURES = join(import.meta.dirname, '../../../../test/fixtures/import/cosmos');
const app = () => importCosmos(join(FIXTURES, 'torrent'), 'torrent');
const DB = { database: 'postgres://host.docker.internal:5433' };
const services = (values: Record<string, string | boolean> = {}) => renderDefaults(app(), { ...DB, ...values }).doc.services;

test('a block that opens and closes inside one entry chooses the value', () => {
  assert.equal(services().torrent.restart, 'unless-stopped');
  assert.equal(services({ auto_restart: false }).torrent.restart, 'no');
  const only = parseCosmos('{ "a": {if Context.x} "b" {/if}, "c": 1 }');
  assert.equal(only.members.length, 2);
  assert.throws(() => parseCosmos('{ "a": {if Context.x} "b", "c" {/if} }'), /one value per branch/);
});

test('the same published port twice is kept once; tcp and udp of one host port share its field', () => {
  const t = app().template;
  assert.deepEqual(services().torrent.ports, ['8080:8080', '6881:6881', '6881:6881/udp']);
  assert.equal(allFields(t).filter((f) => f.type === 'port' && f.default === 6881).length, 1);
  assert.deepEqual(services({ port: 7000 } as never).torrent.ports.slice(1), ['7000:6881', '7000:6881/udp']);
  assert.ok(app().notes.includes('ports listed twice kept once'));
});

test('links given as a map become compose’s list; depends_on gets the condition compose v1 needs', () => {
  const s = services();
  assert.deepEqual(s.torrent.links, ['torrent-cache:cache']);
  assert.deepEqual(s.torrent.depends_on, { 'torrent-cache': { condition: 'service_started' } });
  assert.deepEqual(s['torrent-exporter'].depends_on, { torrent: { condition: 'service_started' } }, 'restart (v2 only) dropped');
  assert.ok(app().notes.includes('depends_on of torrent: only the condition is kept'));
});

test('keys in the store’s own casing (NetworkMode, StopGracePeriod, Healthcheck) are compose’s keys', () => {
  const s = services();
  assert.equal(s['torrent-exporter'].network_mode, 'service:torrent');
  assert.equal(s['torrent-exporter'].NetworkMode, undefined);
  assert.equal(s.torrent.stop_grace_period, '10s');
  assert.deepEqual(s['torrent-cache'].healthcheck, { test: ['CMD', 'redis-cli', 'ping'], interval: '30s' });
  assert.equal(s['torrent-cache'].restart, 'unless-stopped');
});

test('{Context.<picker>-name} is the host of a connect field; the port after it is the connect field’s port', () => {
  const f = allFields(app().template).find((x) => x.id === 'database');
  assert.deepEqual(f?.connect, { app: 'postgres', scheme: 'postgres', port: 5432 });
  assert.equal(f?.required, true);
  const env = services().torrent.environment as string[];
  assert.ok(env.includes('DB_HOST=host.docker.internal'), env.join(' '));
  assert.ok(env.includes('DB_URL=postgres://torrent@host.docker.internal:5433/torrent'), env.join(' '));
  assert.deepEqual(services().torrent.extra_hosts, ['host.docker.internal:host-gateway']);
  assert.equal(services()['torrent-cache'].extra_hosts, undefined, 'only the service that connects');
});

test('a key set twice (again, and inside blocks) is written once: the later one wins, per branch', () => {
  assert.deepEqual(services().torrent.labels, { 'org.example.role': 'web', 'org.example.final': 'yes' });
  assert.deepEqual(services({ auto_restart: false }).torrent.labels, { 'org.example.role': 'manual' });
  const twice = map([
    { key: 'a', value: lit(1) },
    { cond: { field: 'x', negate: false }, yes: [{ key: 'a', value: lit(2) }], no: [] },
    {
      key: 'b',
      value: seq([
        map([
          { key: 'c', value: lit(1) },
          { key: 'c', value: lit(2) },
        ]),
      ]),
    },
  ]) as Extract<ReturnType<typeof map>, { k: 'map' }>;
  assert.equal(emitCompose(twice), '{{#x}}\n"a": 2\n{{/x}}\n{{^x}}\n"a": 1\n{{/x}}\n"b":\n  -\n    "c": 2\n');
});

test('every branch renders into a file the compose CLI accepts, and the app passes Kade’s lint', async () => {
  for (const values of [{}, { auto_restart: false }]) {
    assert.equal(await composeProblem(renderDefaults(app(), { ...DB, ...values }), 'kadetest-torrent'), null);
  }
  assert.deepEqual(lintErrors(app()), []);
});
