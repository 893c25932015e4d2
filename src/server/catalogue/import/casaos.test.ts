import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { allFields } from '../../templates/render.ts';
import { CHECK_DATA_DIR, composeCheck, renderWithDefaults } from './check.ts';
import { detectFolder, type ImportedEntry, importTree } from './importers.ts';

const APPS = join(import.meta.dirname, '../../../../test/fixtures/import/casaos/Apps');
const tree = importTree(APPS);
const hello = (): ImportedEntry => {
  const a = tree.apps.find((x) => x.id === 'hello-casa');
  assert.ok(a, `hello-casa is imported (refused: ${JSON.stringify(tree.refused)})`);
  return a;
};
const field = (id: string) => {
  const f = allFields(hello().template).find((x) => x.id === id);
  assert.ok(f, `the field ${id}`);
  return f;
};

test('a compose file with a top-level x-casaos is CasaOS; a folder name becomes a safe id; the engine socket is kept, a power for an admin', () => {
  assert.equal(detectFolder(join(APPS, 'Hello-Casa'))?.format, 'casaos');
  assert.deepEqual(tree.report, { format: 'casaos', found: 2, imported: 2, refused: [] });
  const sock = tree.apps.find((a) => a.id === 'sockapp');
  assert.ok(sock?.compose.includes('"/var/run/docker.sock:/var/run/docker.sock"'), sock?.compose);
  assert.ok(sock?.notes.some((n) => n.startsWith('binds the engine socket /var/run/docker.sock: full control of every container on this host')));
});

test('title, tagline and description in en and nl, icon, version, web port and path from x-casaos', () => {
  const t = hello().template;
  assert.equal(t.name, 'Hello Casa');
  assert.deepEqual(t.description, { en: 'Says hello\n\nA greeting app for movies.', nl: 'Zegt hallo\n\nEen begroetingsapp voor films.' });
  assert.equal(t.icon, 'https://example.invalid/hello.png');
  assert.equal(t.version, '3.2');
  assert.deepEqual(t.web, { port_field: 'port_8080', scheme: 'http', path: '/welcome' });
  assert.deepEqual(t.metadata.categories, ['media']);
});

test('ports become port fields with the published port as default; x-casaos and the top-level name are gone', () => {
  const web = field('port_8080');
  assert.deepEqual([web.type, web.default, web.label], ['port', 8090, 'Web UI (8080)']);
  assert.equal(field('port_443').default, 8443);
  const r = renderWithDefaults(hello());
  const doc = parse(r.compose);
  assert.equal(doc.name, undefined);
  assert.equal(doc['x-casaos'], undefined);
  assert.equal(doc.services.hello['x-casaos'], undefined);
  assert.deepEqual(doc.services.hello.ports, [{ target: 8080, protocol: 'tcp', published: 8090 }, '8443:443']);
  const other = parse(renderWithDefaults(hello(), { port_8080: 9100 }).compose);
  assert.equal(other.services.hello.ports[0].published, 9100);
});

test('/DATA/AppData/$AppID goes to the data folder, /DATA/Media/… to a folder field, the host time files are dropped', () => {
  const movies = field('media_movies_dir');
  assert.deepEqual([movies.type, movies.default], ['path', '{data_dir}/Media/Movies']);
  const doc = parse(renderWithDefaults(hello()).compose);
  assert.deepEqual(doc.services.hello.volumes, [
    { type: 'bind', source: `${CHECK_DATA_DIR}/hello-casa/config`, target: '/config' },
    `${CHECK_DATA_DIR}/hello-casa/Media/Movies:/movies`,
  ]);
  assert.ok(hello().notes.some((n) => n.includes('time files')));
});

test('$PUID/$PGID are Kade’s user and group, $AppID the app’s name, $TZ Kade’s own, ${X:-default} a field with that default', () => {
  const env = parse(renderWithDefaults(hello()).compose).services.hello.environment;
  assert.equal(env.PUID, '1000');
  assert.equal(env.PGID, '1000');
  assert.equal(env.WEB_URL, 'http://hello-casa.local:8080');
  assert.equal(env.TZ, 'UTC');
  assert.equal(env.APP_TITLE, 'Hello from CasaOS');
  assert.equal(env.VERBOSE, 'true');
  assert.equal(field('app_title').default, 'Hello from CasaOS');
  assert.equal(field('app_title').info, 'The title shown on the page');
});

test('`{{` in the source (Go templates of other tools) stays literal', () => {
  const doc = parse(renderWithDefaults(hello()).compose);
  assert.equal(doc.services.hello.command[2], "echo '{{ .Name }}' && exec sleep 3600");
  assert.equal(doc.services.hello.labels['org.example.template'], '{{#x}}kept{{/x}}');
});

test('the imported CasaOS app renders to a file the compose CLI accepts', async () => {
  const r = renderWithDefaults(hello());
  assert.equal(await composeCheck('hello-casa', r.compose, r.env), null);
});
