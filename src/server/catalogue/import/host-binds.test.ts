// Issue #26, class 1, the host paths the importers keep as they are, per format (fixtures test/fixtures/import/
// <format>/host-binds and cosmos/{rootfs-rw,run-folder,literal-path}):
//  - `/` bound writable holds Kade's own files, which no install lets a container change (bind-structure.ts): the
//    app is not imported, and the report, the store and `templates:check` say so alike; `/` read-only is a power.
//  - `/var/run` and `/run` hold the engine socket: kept as they are (never moved below the data folder, which took the
//    socket away), and named as the engine socket's power.
//  - a literal Cosmos host folder (`/cosmos/x`) lands below the app's data folder, whose field the app declares.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { templatePowers } from '../../templates/app-powers.ts';
import { indexRepo } from '../app-index.ts';
import { checkPath } from './check.ts';
import { importTree } from './importers.ts';
import { detectPortainer, importPortainer } from './portainer.ts';
import { WRITABLE_ROOT } from './portainer-common.ts';
import { checkoutOf, composeProblem, renderDefaults } from './portainer-render-check.ts';
import type { ImportedApp } from './types.ts';

const FIXTURES = join(import.meta.dirname, '../../../../test/fixtures/import');
const portainerRoot = checkoutOf(join(FIXTURES, 'portainer/host-binds'), 'https://github.com/example/kade-portainer-fixture.git');
after(() => rmSync(portainerRoot, { recursive: true, force: true }));

const tipi = importTree(join(FIXTURES, 'runtipi/host-binds/apps'));
const casa = importTree(join(FIXTURES, 'casaos/host-binds/Apps'));
const portainer = importPortainer(portainerRoot, detectPortainer(portainerRoot) ?? '');
const cosmos = importTree(join(FIXTURES, 'cosmos'));
const all: ImportedApp[] = [...tipi.apps, ...casa.apps, ...portainer.apps, ...cosmos.apps];

const byId = (id: string): ImportedApp => {
  const a = all.find((x) => x.id === id);
  assert.ok(a, `${id} is imported`);
  return a;
};
const powersOf = (id: string): string[] => templatePowers(byId(id).template, byId(id).compose).map((p) => `${p.power} ${p.value}${p.read_only ? ' ro' : ''}`);
const binds = (id: string, service: string): string[] =>
  (renderDefaults(byId(id)).doc.services[service].volumes as (string | { source: string; target: string; read_only?: boolean })[]).map((v) =>
    typeof v === 'string' ? v : `${v.source}:${v.target}${v.read_only ? ':ro' : ''}`,
  );
const reasonOf = (refused: { app: string; reason: string }[], app: string) => refused.find((r) => r.app === app)?.reason;

test("an app that binds / writable is not imported, in every format, with the reason: it holds Kade's own files", () => {
  assert.equal(WRITABLE_ROOT, "binds the host path / writable, which holds Kade's own files that no app may change");
  assert.deepEqual(tipi.refused, [{ app: 'files-tipi', reason: WRITABLE_ROOT }]);
  assert.deepEqual(casa.refused, [{ app: 'Files-Casa', reason: WRITABLE_ROOT }]);
  assert.deepEqual(
    portainer.refused.map((r) => [r.app, r.reason]),
    [
      ['filebrowser-root', WRITABLE_ROOT],
      ['root-stack', WRITABLE_ROOT],
    ],
  );
  assert.equal(reasonOf(cosmos.refused, 'rootfs-rw'), WRITABLE_ROOT);
  assert.deepEqual(
    all.map((a) => a.id).filter((id) => /files|root|cadvisor|run-|literal/.test(id)),
    ['cadvisor-tipi', 'cadvisor-casa', 'cadvisor', 'run-stack', 'literal-path', 'run-folder'],
  );
});

test('the report and the store leave it out and name it; templates:check counts it as not imported', async () => {
  const idx = indexRepo('tipi', join(FIXTURES, 'runtipi/host-binds/apps'));
  assert.deepEqual(
    idx.apps.map((a) => a.app),
    ['cadvisor-tipi'],
  );
  assert.deepEqual(idx.report.refused, [{ app: 'files-tipi', reason: WRITABLE_ROOT }]);
  assert.equal(idx.report.with_powers, 1);
  const r = await checkPath(join(FIXTURES, 'runtipi/host-binds'));
  assert.deepEqual({ found: r.found, imported: r.imported, valid: r.valid, withPowers: r.withPowers }, { found: 2, imported: 1, valid: 1, withPowers: 1 });
  assert.deepEqual(r.failures, [`files-tipi: not imported: ${WRITABLE_ROOT}`]);
});

test('/ read-only stays a power; /var/run and /run are kept as they are, the engine socket power (Runtipi, CasaOS)', () => {
  assert.deepEqual(binds('cadvisor-tipi', 'cadvisor-tipi'), [
    '/:/rootfs:ro',
    '/var/run:/var/run:ro',
    '/run/dbus:/run/dbus',
    '/sys:/sys:ro',
    '/srv/kade-data/cadvisor-tipi/data:/data',
  ]);
  // `/` and `/var/run` both hold /var/run/docker.sock: one power.
  assert.deepEqual(powersOf('cadvisor-tipi'), [
    'engine_socket /var/run/docker.sock',
    'host_path / ro',
    'host_path /var/run ro',
    'host_path /run/dbus',
    'host_path /sys ro',
  ]);
  assert.ok(
    byId('cadvisor-tipi').notes.includes(
      'binds the host path /var/run as it is, which holds the engine socket: full control of every container on this host, for an admin to allow at install',
    ),
    byId('cadvisor-tipi').notes.join('\n'),
  );
  assert.deepEqual(binds('cadvisor-casa', 'cadvisor'), [
    '/:/rootfs:ro',
    '/var/run:/var/run:ro',
    '/run:/host/run',
    '/sys:/sys:ro',
    '/srv/kade-data/cadvisor-casa/data:/data',
  ]);
  assert.deepEqual(powersOf('cadvisor-casa'), [
    'engine_socket /var/run/docker.sock',
    'engine_socket /run/docker.sock',
    'host_path / ro',
    'host_path /var/run ro',
    'host_path /run',
    'host_path /sys ro',
  ]);
});

test('/var/run and /run are kept as they are in Portainer containers and stacks and in Cosmos, long and short syntax', () => {
  assert.deepEqual(binds('cadvisor', 'cadvisor'), ['/:/rootfs:ro', '/var/run:/var/run:ro', '/sys:/sys:ro']);
  assert.deepEqual(powersOf('cadvisor'), ['engine_socket /var/run/docker.sock', 'host_path / ro', 'host_path /var/run ro', 'host_path /sys ro']);
  assert.deepEqual(binds('run-stack', 'agent'), ['/run:/run', '/:/rootfs:ro,rslave', '/srv/kade-data/run-stack/data:/data']);
  assert.deepEqual(powersOf('run-stack'), ['engine_socket /run/docker.sock', 'engine_socket /var/run/docker.sock', 'host_path /run', 'host_path / ro']);
  assert.deepEqual(binds('run-folder', 'run-folder'), ['/var/run:/var/run:ro', '/run/dbus:/run/dbus:ro', 'run-folder-data:/data']);
  assert.deepEqual(powersOf('run-folder'), ['engine_socket /var/run/docker.sock', 'host_path /var/run ro', 'host_path /run/dbus ro']);
});

test('Cosmos: a literal host folder lands below the data folder, and the app declares that field and renders', () => {
  const app = byId('literal-path');
  assert.ok(
    app.template.fields.some((f) => f.id === 'appdata_dir' && f.type === 'path'),
    JSON.stringify(app.template.fields),
  );
  assert.deepEqual(binds('literal-path', 'literal-path'), ['/srv/kade-data/literal-path/cosmos/x:/data', '/srv/kade-data/literal-path/srv/media:/media:ro']);
  assert.deepEqual(powersOf('literal-path'), []);
});

test('each app kept renders into a compose file the compose CLI accepts', async () => {
  for (const id of ['cadvisor-tipi', 'cadvisor-casa', 'cadvisor', 'run-stack', 'run-folder', 'literal-path']) {
    assert.equal(await composeProblem(renderDefaults(byId(id)), `kadetest-${id}`), null, id);
  }
});
