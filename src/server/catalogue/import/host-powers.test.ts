// Issue #26, class 1: apps of the other stores that bind the engine socket, `/` read-only, a device such as
// /dev/net/tun or /etc/passwd are imported, each of those host paths kept as it is (a power an admin allows at
// install), never moved below the data folder or refused; the host's time zone file is dropped as before (Kade
// sets TZ). Fixtures: test/fixtures/import/<format>/powers (Runtipi, CasaOS, Portainer) and cosmos/{netdata,vpn}.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { StorePowerT } from '../../../shared/powers.ts';
import { templatePowers } from '../../templates/app-powers.ts';
import { indexRepo } from '../app-index.ts';
import { checkPath } from './check.ts';
import { importCosmos } from './cosmos.ts';
import { importTree } from './importers.ts';
import { detectPortainer, importPortainer } from './portainer.ts';
import { checkoutOf, composeProblem, renderDefaults } from './portainer-render-check.ts';
import type { ImportedApp } from './types.ts';

const FIXTURES = join(import.meta.dirname, '../../../../test/fixtures/import');
const portainerRoot = checkoutOf(join(FIXTURES, 'portainer/powers'), 'https://github.com/example/kade-portainer-fixture.git');
after(() => rmSync(portainerRoot, { recursive: true, force: true }));

const tipi = importTree(join(FIXTURES, 'runtipi/powers/apps'));
const casa = importTree(join(FIXTURES, 'casaos/powers/Apps'));
const portainer = importPortainer(portainerRoot, detectPortainer(portainerRoot) ?? '');
const cosmos = ['netdata', 'vpn'].map((id) => importCosmos(join(FIXTURES, 'cosmos', id), id));
const all: ImportedApp[] = [...tipi.apps, ...casa.apps, ...portainer.apps, ...cosmos];

const byId = (id: string): ImportedApp => {
  const a = all.find((x) => x.id === id);
  assert.ok(a, `${id} is imported`);
  return a;
};
/** The powers the store shows, as `power value` (`ro` when only read). */
const powersOf = (id: string): string[] =>
  templatePowers(byId(id).template, byId(id).compose).map((p: StorePowerT) => `${p.power} ${p.value}${p.read_only ? ' ro' : ''}`);
const binds = (id: string, service: string): string[] =>
  (renderDefaults(byId(id)).doc.services[service].volumes as (string | { source: string; target: string })[]).map((v) =>
    typeof v === 'string' ? v : `${v.source}:${v.target}`,
  );

test('every fixture of the class is imported in each format, none refused', () => {
  assert.deepEqual(
    all.map((a) => a.id),
    ['dozzle-tipi', 'glances-tipi', 'dash-casa', 'vpn-casa', 'uptime-kuma', 'dashdot', 'dozzle-stack', 'netdata', 'vpn'],
  );
  assert.deepEqual([...tipi.refused, ...casa.refused, ...portainer.refused], []);
});

test('Runtipi: the engine socket and the host root stay as they are, named as powers; the time zone file is dropped', () => {
  assert.deepEqual(binds('dozzle-tipi', 'dozzle-tipi'), ['/var/run/docker.sock:/var/run/docker.sock:ro', '/srv/kade-data/dozzle-tipi/data:/data']);
  assert.deepEqual(powersOf('dozzle-tipi'), ['engine_socket /var/run/docker.sock']);
  assert.ok(byId('dozzle-tipi').notes.includes('host time files dropped (Kade sets TZ)'));
  assert.deepEqual(powersOf('glances-tipi'), [
    'pid host',
    'devices /dev/net/tun',
    'engine_socket /var/run/docker.sock',
    'host_path / ro',
    'host_path /etc/passwd ro',
  ]);
  assert.ok(
    byId('glances-tipi').notes.includes(
      'binds the host path / as it is, which holds the engine socket: full control of every container on this host, for an admin to allow at install',
    ),
  );
  assert.ok(byId('glances-tipi').notes.includes('binds the host path /etc/passwd as it is: a power over the host, for an admin to allow at install'));
});

test('CasaOS: the long syntax keeps its read-only flag; a device bound as a volume is a host path', () => {
  assert.deepEqual(binds('dash-casa', 'dash'), ['/var/run/docker.sock:/var/run/docker.sock', '/:/host', '/srv/kade-data/dash-casa/config:/app/config']);
  assert.equal(renderDefaults(byId('dash-casa')).doc.services.dash.volumes[1].read_only, true);
  assert.deepEqual(powersOf('dash-casa'), ['engine_socket /var/run/docker.sock', 'host_path / ro']);
  assert.deepEqual(powersOf('vpn-casa'), ['cap_add NET_ADMIN', 'devices /dev/net/tun', 'host_path /dev/net/tun', 'host_path /etc/passwd ro']);
});

test('Portainer: containers and a stack file keep the socket, the host root and the device; privileged stays for the policy', () => {
  assert.deepEqual(powersOf('uptime-kuma'), ['engine_socket /var/run/docker.sock']);
  // `/`, even read-only, holds the engine socket (a socket answers through a read-only bind).
  assert.deepEqual(powersOf('dashdot'), ['privileged true', 'engine_socket /var/run/docker.sock', 'host_path / ro']);
  assert.deepEqual(powersOf('dozzle-stack'), ['devices /dev/net/tun', 'engine_socket /var/run/docker.sock']);
  assert.ok(byId('uptime-kuma').notes.some((n) => n.startsWith('binds the engine socket /var/run/docker.sock')));
});

test('Cosmos: /, /proc, /sys and /etc/passwd read-only and the socket are kept; its data path is the data folder', () => {
  assert.deepEqual(powersOf('netdata'), [
    'pid host',
    'cap_add SYS_PTRACE',
    'security_opt apparmor=unconfined',
    'engine_socket /var/run/docker.sock',
    'host_path / ro',
    'host_path /proc ro',
    'host_path /sys ro',
    'host_path /etc/passwd ro',
  ]);
  assert.deepEqual(powersOf('vpn'), ['cap_add NET_ADMIN', 'devices /dev/net/tun', 'host_path /dev/net/tun']);
  assert.ok(binds('vpn', 'vpn').includes('/srv/kade-data/vpn/config:/config'), binds('vpn', 'vpn').join(' '));
});

test('each app with powers renders into a compose file the compose CLI accepts', async () => {
  for (const a of all) assert.equal(await composeProblem(renderDefaults(a), `kadetest-${a.id}`), null, a.id);
});

test('the import report counts the apps imported with powers', () => {
  const idx = indexRepo('tipi', join(FIXTURES, 'runtipi/powers/apps'));
  assert.equal(idx.report.imported, 2);
  assert.equal(idx.report.with_powers, 2);
  assert.deepEqual(
    idx.apps.map((a) => a.powers.map((p) => p.power)),
    [['engine_socket'], ['pid', 'devices', 'engine_socket', 'host_path', 'host_path']],
  );
  const plain = indexRepo('tipi', join(FIXTURES, 'runtipi/apps'));
  assert.equal(plain.report.with_powers, 0);
});

test('npm run templates:check counts the apps with powers beside the valid ones', async () => {
  const r = await checkPath(join(FIXTURES, 'runtipi/powers'));
  assert.deepEqual({ found: r.found, imported: r.imported, valid: r.valid, withPowers: r.withPowers }, { found: 2, imported: 2, valid: 2, withPowers: 2 });
  assert.deepEqual(r.failures, []);
});
