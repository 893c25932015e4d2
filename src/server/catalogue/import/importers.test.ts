import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { renderWithDefaults } from './check.ts';
import { importTree } from './importers.ts';

const FIXTURES = join(import.meta.dirname, '../../../../test/fixtures');
const dir = mkdtempSync(join(tmpdir(), 'kade-importers-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// One repo of several formats: a Kade app, a Runtipi app, a CasaOS app, a Runtipi app in the x-runtipi compose
// form, a compose file of no known format, and a docs folder that is no app.
cpSync(join(FIXTURES, 'repos/basic/apps/hello'), join(dir, 'hello'), { recursive: true });
cpSync(join(FIXTURES, 'import/runtipi/apps/echo-tipi'), join(dir, 'echo-tipi'), { recursive: true });
cpSync(join(FIXTURES, 'import/casaos/Apps/Hello-Casa'), join(dir, 'Hello-Casa'), { recursive: true });
mkdirSync(join(dir, 'xr'));
writeFileSync(
  join(dir, 'xr', 'config.json'),
  JSON.stringify({ name: 'XR', id: 'xr', port: 8800, version: '1', categories: ['ai'], short_desc: 'x', form_fields: [] }),
);
writeFileSync(
  join(dir, 'xr', 'docker-compose.yml'),
  'x-runtipi:\n  schema_version: 2\nservices:\n  xr:\n    image: kade-test/busybox:1\n    ports: ["${APP_PORT}:80"]\n    x-runtipi:\n      is_main: true\n',
);
mkdirSync(join(dir, 'plain'));
writeFileSync(join(dir, 'plain', 'docker-compose.yml'), 'services:\n  a:\n    image: kade-test/busybox:1\n');
mkdirSync(join(dir, 'docs'));
writeFileSync(join(dir, 'docs', 'README.md'), '# not an app\n');

const tree = importTree(dir);

test('formats are detected per folder; a repo of several is reported as mixed; a plain compose file is refused as a Kade app without template.json', () => {
  const byId = Object.fromEntries(tree.apps.map((a) => [a.id, a.format]));
  assert.deepEqual(byId, { 'echo-tipi': 'runtipi', hello: 'kade', 'hello-casa': 'casaos', xr: 'runtipi' });
  assert.deepEqual(tree.report, { format: 'mixed', found: 5, imported: 4, refused: [{ app: 'plain', reason: "app 'plain' has no template.json" }] });
});

test('the x-runtipi compose form: the x-runtipi blocks are dropped, APP_PORT is the web port field', () => {
  const xr = tree.apps.find((a) => a.id === 'xr');
  assert.ok(xr);
  const doc = parse(renderWithDefaults(xr).compose);
  assert.equal(doc['x-runtipi'], undefined);
  assert.deepEqual(doc.services.xr.ports, ['8800:80']);
  assert.equal(doc.services.xr['x-runtipi'], undefined);
  assert.deepEqual(xr.template.metadata.categories, ['ai']);
});

test('two folders that map to the same id: the second is refused with the reason', () => {
  const twin = mkdtempSync(join(tmpdir(), 'kade-importers-twin-'));
  try {
    cpSync(join(FIXTURES, 'import/casaos/Apps/Hello-Casa'), join(twin, 'Hello-Casa'), { recursive: true });
    cpSync(join(FIXTURES, 'import/casaos/Apps/Hello-Casa'), join(twin, 'hello-casa'), { recursive: true });
    const t = importTree(twin);
    assert.equal(t.apps.length, 1);
    assert.deepEqual(t.refused, [{ app: 'hello-casa', reason: "its id 'hello-casa' is the id of the app in folder 'Hello-Casa' already" }]);
  } finally {
    rmSync(twin, { recursive: true, force: true });
  }
});
