import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { allFields } from '../../templates/render.ts';
import { cosmosImporter, importCosmos } from './cosmos.ts';
import { parseCosmos } from './cosmos-whiskers.ts';
import { composeProblem, DATA_DIR, lintErrors, renderDefaults } from './portainer-render-check.ts';

const FIXTURES = join(import.meta.dirname, '../../../../test/fixtures/import/cosmos');
const nextcloud = importCosmos(join(FIXTURES, 'nextcloud'), 'nextcloud');
const field = (id: string) => allFields(nextcloud.template).find((f) => f.id === id);
const refusal = (app: string): string => {
  try {
    importCosmos(join(FIXTURES, app), app);
  } catch (e) {
    return (e as Error).message;
  }
  return 'imported';
};

test('a folder with cosmos-compose.json is a Cosmos app', () => {
  assert.equal(cosmosImporter.detect(join(FIXTURES, 'nextcloud')), true);
  assert.equal(cosmosImporter.detect(FIXTURES), false);
});

test('the install form becomes fields: types, defaults, options, translations', () => {
  assert.deepEqual(field('data_path'), {
    id: 'data_path',
    label: { en: 'Where do your files go? (leave empty to keep them in a volume)', nl: 'Waar komen je bestanden? (leeg: in een volume)' },
    type: 'path',
    required: false,
    secret: false,
    advanced: false,
    default: '{data_dir}/nextcloud-data',
  });
  assert.equal(field('admin_user')?.default, 'admin');
  assert.equal(field('admin_password')?.type, 'password');
  assert.equal(field('admin_password')?.secret, true);
  assert.equal(field('enable_debug')?.type, 'boolean');
  assert.equal(field('enable_debug')?.default, false);
  assert.deepEqual(field('log_level')?.options, [
    { value: '2', label: 'Warning' },
    { value: '0', label: 'Debug' },
  ]);
  assert.equal(field('log_level')?.default, '2');
  assert.equal(field('tip'), undefined, 'a warning is text, not a field');
  const d = nextcloud.template.description as { en: string; nl: string };
  assert.match(d.en, /^Your files, calendar and contacts in your own cloud\n\nSet up a cron job/);
  assert.match(d.nl, /^Je bestanden, agenda en contacten/);
  assert.equal(nextcloud.template.name, 'Nextcloud');
  assert.equal(nextcloud.template.version, '29.0.4');
  assert.equal(nextcloud.template.icon, 'https://example.org/icons/nextcloud.png');
  assert.ok(nextcloud.template.metadata.categories.includes('productivity'));
});

test('{Passwords.N} are generated secret fields shared by every use; {ServiceName} is the app id', () => {
  for (const id of ['password_0', 'password_1']) {
    assert.equal(field(id)?.secret, true);
    assert.equal(field(id)?.generate, true);
    assert.equal(field(id)?.advanced, true);
  }
  const r = renderDefaults(nextcloud);
  const app = r.doc.services.nextcloud;
  const db = r.doc.services['nextcloud-mariadb'];
  assert.ok(app.environment.includes('MYSQL_PASSWORD=${PASSWORD_0}'));
  assert.ok(db.environment.includes('MARIADB_PASSWORD=${PASSWORD_0}'));
  assert.ok(db.environment.includes('MARIADB_ROOT_PASSWORD=${PASSWORD_1}'));
  assert.ok((r.env.PASSWORD_0 ?? '').length >= 16);
  assert.notEqual(r.env.PASSWORD_0, r.env.PASSWORD_1);
  assert.ok(app.environment.includes('MYSQL_HOST=nextcloud-mariadb'));
  assert.ok(app.environment.includes('NEXTCLOUD_TRUSTED_DOMAINS=localhost'));
  assert.equal(app.container_name, undefined);
});

test('{if Context.x} blocks and {else} become sections on the field, for entries and inside strings', () => {
  const off = renderDefaults(nextcloud).doc.services.nextcloud;
  assert.ok(off.environment.includes('DEBUG=false'));
  assert.ok(!off.environment.some((e: string) => e.startsWith('XDEBUG_MODE')));
  const on = renderDefaults(nextcloud, { enable_debug: true }).doc.services.nextcloud;
  assert.ok(on.environment.includes('DEBUG=true'));
  assert.ok(on.environment.includes('XDEBUG_MODE=debug'));
  assert.deepEqual(off.volumes[1], { source: `${DATA_DIR}/nextcloud/nextcloud-data`, target: '/var/www/html/data', type: 'bind' });
  const empty = renderDefaults(nextcloud, { data_path: '' });
  assert.deepEqual(empty.doc.services.nextcloud.volumes[1], { source: 'nextcloud-data', target: '/var/www/html/data', type: 'volume' });
});

test('routes become a published port; cosmos labels, container names and the time file are dropped, and noted', () => {
  assert.equal(field('port')?.default, 8080);
  assert.deepEqual(nextcloud.template.web, { port_field: 'port', scheme: 'http', path: '/' });
  const r = renderDefaults(nextcloud);
  const app = r.doc.services.nextcloud;
  assert.deepEqual(app.ports, ['8080:80']);
  assert.deepEqual(app.labels, { 'com.example.keep': 'yes {{ really }}' });
  assert.equal(app.routes, undefined);
  assert.equal(app.volumes.length, 2);
  assert.deepEqual(Object.keys(r.doc.volumes).sort(), ['nextcloud-config', 'nextcloud-data', 'nextcloud-mariadb-data']);
  assert.equal(r.doc.services['nextcloud-mariadb'].healthcheck.interval, '30s');
  for (const n of [
    'cosmos-* labels dropped',
    'post-install messages dropped: the credentials panel shows generated passwords',
    '/etc/localtime dropped: Kade sets TZ',
    'Cosmos routes (its own reverse proxy) mapped to published ports',
  ]) {
    assert.ok(nextcloud.notes.includes(n), n);
  }
});

test('source text stays literal: no {{ of the source is a Kade tag, $ stays a dollar', () => {
  const app = renderDefaults(nextcloud).doc.services.nextcloud;
  assert.ok(app.environment.includes('LITERAL=keep {{ braces }} and $$HOME'));
});

test('what cannot be mapped is refused with the reason', () => {
  assert.equal(refusal('compare'), 'conditional blocks depend on form values in a way Kade cannot express (a comparison)');
  assert.equal(refusal('cpu'), "conditional blocks depend on the host's CPU ({CPU_AVX})");
  assert.throws(() => parseCosmos('{ "a": [ 1 {if Context.x} ] {/if} }'), /a conditional block does not enclose whole entries/);
  const dir = mkdtempSync(join(tmpdir(), 'kade-cosmos-'));
  try {
    const form = '"cosmos-installer": { "form": [{ "name": "x", "label": "X", "type": "checkbox" }] }';
    writeFileSync(join(dir, 'cosmos-compose.json'), `{ ${form}, "services": { "{ServiceName}{if Context.x}-x{/if}": { "image": "a" } } }`);
    assert.throws(() => importCosmos(dir, 'keyed'), /keys cannot depend on form values/);
    writeFileSync(join(dir, 'cosmos-compose.json'), `{ ${form}, "services": { "{Context.x}": { "image": "a" } } }`);
    assert.throws(() => importCosmos(dir, 'keyed'), /keys cannot depend on form values/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.throws(() => parseCosmos('{ "a": 1 {if Context.x}, "b": 2 }'), /a conditional block does not enclose whole entries/);
});

test('a Cosmos folder name (AdGuardHome) becomes a valid app id, also inside the compose file', () => {
  const a = importCosmos(join(FIXTURES, 'whoami'), 'Who_Am I');
  assert.equal(a.id, 'who-am-i');
  assert.ok(a.compose.includes('"who-am-i":'));
});

test('an app without a form or description gets its id as name and the fallback category', () => {
  const a = importCosmos(join(FIXTURES, 'whoami'), 'whoami');
  assert.equal(a.template.name, 'whoami');
  assert.deepEqual(a.template.metadata.categories, ['overig']);
  assert.equal(allFields(a.template).find((f) => f.id === 'port')?.default, 8000);
  assert.equal(renderDefaults(a).doc.services.whoami.command, '--port 80 --name whoami');
});

test('a conditional service and a conditional form field; trailing commas; host folders of the form in the data folder', async () => {
  const a = importCosmos(join(FIXTURES, 'photos'), 'photos');
  const f = (id: string) => allFields(a.template).find((x) => x.id === id);
  assert.equal(f('photo_path')?.type, 'path', 'a text field used as a bind source is a path field');
  assert.equal(f('photo_path')?.default, '{data_dir}/var/lib/photos');
  assert.equal(f('backup_path')?.default, '{data_dir}/photos-backup', 'a field a block shows for some answers is a field');
  assert.equal(f('port')?.default, 3001);
  const off = renderDefaults(a).doc;
  assert.deepEqual(Object.keys(off.services).sort(), ['photos', 'photos-database']);
  assert.equal(off.services.photos.volumes[0].source, `${DATA_DIR}/photos/var/lib/photos`);
  assert.equal(off.services.photos.labels, undefined, 'only cosmos labels: none left');
  const on = renderDefaults(a, { with_backup: true }).doc;
  assert.deepEqual(Object.keys(on.services).sort(), ['photos', 'photos-backup', 'photos-database']);
  assert.equal(on.services['photos-backup'].volumes[0].source, `${DATA_DIR}/photos/photos-backup`);
  assert.ok(a.notes.includes('uid dropped'));
  for (const r of [renderDefaults(a), renderDefaults(a, { with_backup: true })]) assert.equal(await composeProblem(r, 'kadetest-photos'), null);
});

test('the imported apps render with their defaults (and the other branches) into files the compose CLI accepts', async () => {
  assert.equal(await composeProblem(renderDefaults(nextcloud), 'kadetest-nextcloud'), null);
  assert.equal(await composeProblem(renderDefaults(nextcloud, { enable_debug: true, data_path: '' }), 'kadetest-nextcloud'), null);
  assert.equal(await composeProblem(renderDefaults(importCosmos(join(FIXTURES, 'whoami'), 'whoami')), 'kadetest-whoami'), null);
});

test('a form value as a published port is a port field; {if not …} … {end}; an https route', async () => {
  const a = importCosmos(join(FIXTURES, 'hass'), 'hass');
  const f = (id: string) => allFields(a.template).find((x) => x.id === id);
  assert.equal(f('web_port')?.type, 'port');
  assert.equal(f('web_port')?.default, 8123);
  assert.equal(f('port')?.default, 8443);
  assert.deepEqual(a.template.web, { port_field: 'port', scheme: 'https', path: '/' });
  const loud = renderDefaults(a).doc.services.hass;
  assert.deepEqual(loud.ports, ['8123:8123', '8443:8443']);
  assert.deepEqual(loud.environment.slice(0, 2), ['A=1', 'VERBOSE=1']);
  assert.ok(!renderDefaults(a, { quiet: true }).doc.services.hass.environment.includes('VERBOSE=1'));
  assert.equal(await composeProblem(renderDefaults(a), 'kadetest-hass'), null);
});

test('conditions on what is always set, or on no form field, are decided at import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-cosmos-'));
  try {
    const env = '"A=1" {if Passwords.0}, "B=1"{/if} {if Context.nothing}, "C=1"{else}, "D=1"{/if} {if not ServiceName}, "E=1"{/if}';
    writeFileSync(join(dir, 'cosmos-compose.json'), `{ "cosmos-installer": {}, "services": { "{ServiceName}": { "image": "a:1", "environment": [${env}] } } }`);
    const a = importCosmos(dir, 'consts');
    assert.ok(!a.compose.includes('{{#'), 'no section is left');
    assert.deepEqual(renderDefaults(a).doc.services.consts.environment.slice(0, 3), ['A=1', 'B=1', 'D=1']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the imported apps pass Kade's own template lint", () => {
  for (const id of ['nextcloud', 'photos', 'whoami', 'hass']) assert.deepEqual(lintErrors(importCosmos(join(FIXTURES, id), id)), [], id);
});
