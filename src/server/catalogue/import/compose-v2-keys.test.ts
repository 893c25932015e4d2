// Issue 26, class 7: keys only compose v2 reads, in the compose files of CasaOS and Runtipi apps
// (test/fixtures/import/{casaos,runtipi}/v2only): `healthcheck.start_interval`, which v1 refuses, and inline
// `configs.*.content`, which v1 refuses and whose `configs` v1 ignores. Inline configs become files of the app's
// folder bound read-only, so the app runs on both.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { composeCheck, renderWithDefaults } from './check.ts';
import { type ImportedEntry, importTree } from './importers.ts';

const FIXTURES = join(import.meta.dirname, '../../../../test/fixtures/import');
const casa = importTree(join(FIXTURES, 'casaos/v2only/Apps'));
const tipi = importTree(join(FIXTURES, 'runtipi/v2only/apps'));
const app = (tree: ReturnType<typeof importTree>, id: string): ImportedEntry => {
  const a = tree.apps.find((x) => x.id === id);
  assert.ok(a, `${id} is imported (refused: ${JSON.stringify(tree.refused)})`);
  return a;
};
const rendered = (a: ImportedEntry) => parse(renderWithDefaults(a).compose);

test('CasaOS: inline configs are files of the app, bound read-only where compose v2 would put them', () => {
  const a = app(casa, 'proxy-casa');
  assert.deepEqual(a.files, {
    'configs/site_config': 'server {\n  listen 80;\n  location / { proxy_pass http://db:8000; proxy_set_header Host $host; }\n}\n',
    'configs/init.sql': 'CREATE TABLE notes (id int);\n',
  });
  const doc = rendered(a);
  assert.deepEqual(doc.services.web.volumes.slice(1), ['./configs/site_config:/etc/nginx/conf.d/default.conf:ro', './configs/init.sql:/init.sql:ro']);
  assert.equal(doc.services.web.configs, undefined);
  assert.equal(doc.configs, undefined);
  assert.ok(a.notes.includes('inline config site_config written as the file ./configs/site_config, mounted read-only (compose v1 reads no configs)'));
});

test('CasaOS and Runtipi: healthcheck.start_interval is dropped, the rest of the check stays', () => {
  const db = rendered(app(casa, 'proxy-casa')).services.db.healthcheck;
  assert.deepEqual(db, { test: ['CMD', 'true'], start_period: '30s', interval: '10s', timeout: '5s', retries: 5 });
  const web = rendered(app(tipi, 'conf-tipi')).services['conf-tipi'].healthcheck;
  assert.equal(web.start_interval, undefined);
  assert.equal(web.interval, '30s');
  for (const a of [app(casa, 'proxy-casa'), app(tipi, 'conf-tipi')])
    assert.ok(a.notes.includes('healthcheck start_interval dropped (compose v1 does not know it)'));
});

test('Runtipi: an inline config is a file of the app too', () => {
  const a = app(tipi, 'conf-tipi');
  assert.deepEqual(a.files, { 'configs/index': '<h1>Hello from an inline config</h1>\n' });
  assert.deepEqual(rendered(a).services['conf-tipi'].volumes, ['./configs/index:/www/index.html:ro']);
});

test('an inline config that uses variables is refused with the reason: a file cannot fill them in', () => {
  assert.deepEqual(casa.refused, [{ app: 'Vars-Casa', reason: 'configs.settings.content uses variables (PUID), which a config file cannot fill in' }]);
});

test('the compose CLI (v1 here, or v2) accepts the rendered files with the config files beside them', async () => {
  for (const a of [app(casa, 'proxy-casa'), app(tipi, 'conf-tipi')]) {
    const r = renderWithDefaults(a);
    assert.equal(await composeCheck(a.id, r.compose, r.env, undefined, a.files), null, a.id);
  }
});
