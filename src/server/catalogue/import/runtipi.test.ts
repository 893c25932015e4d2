import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { matchesWhole } from '../../../shared/field-pattern.ts';
import { allFields } from '../../templates/render.ts';
import { CHECK_DATA_DIR, composeCheck, renderWithDefaults } from './check.ts';
import { detectFolder, type ImportedEntry, importTree } from './importers.ts';
import { formField } from './runtipi.ts';

const APPS = join(import.meta.dirname, '../../../../test/fixtures/import/runtipi/apps');
const tree = importTree(APPS);
const app = (id: string): ImportedEntry => {
  const a = tree.apps.find((x) => x.id === id);
  assert.ok(a, `${id} is imported (refused: ${JSON.stringify(tree.refused)})`);
  return a;
};
const field = (a: ImportedEntry, id: string) => {
  const f = allFields(a.template).find((x) => x.id === id);
  assert.ok(f, `${a.id} has the field ${id}`);
  return f;
};

test('a folder with config.json and a compose file (yml or the dynamic json) is Runtipi; the report counts and names refusals', () => {
  assert.equal(detectFolder(join(APPS, 'echo-tipi'))?.format, 'runtipi');
  assert.equal(detectFolder(join(APPS, 'dyn-tipi'))?.format, 'runtipi');
  assert.deepEqual(tree.report, {
    format: 'runtipi',
    found: 3,
    imported: 2,
    refused: [{ app: 'odd-tipi', reason: "form field ODD_COLOUR has the type 'colour-wheel', which Kade has no field for" }],
  });
});

test('form field types map onto Kade fields: text limits, password, email, number, boolean, fqdn/ip patterns, url, options, regex', () => {
  const a = app('echo-tipi');
  const greeting = field(a, 'echo_greeting');
  assert.equal(greeting.type, 'text');
  // Its default holds text Kade would fill ({name}): kept out of the form, it stands in the compose file instead.
  assert.equal(greeting.required, false);
  assert.equal(greeting.default, undefined);
  assert.deepEqual([field(a, 'echo_fqdn').required, field(a, 'echo_fqdn').default], [true, 'echo.example.org']);
  assert.equal(greeting.min_length, 2);
  assert.deepEqual([greeting.max_length, greeting.pattern], [40, undefined]);
  assert.equal(greeting.env, 'ECHO_GREETING');
  const admin = field(a, 'echo_admin_password');
  assert.deepEqual([admin.type, admin.secret, admin.generate], ['password', true, false]);
  assert.equal(field(a, 'echo_email').type, 'email');
  const workers = field(a, 'echo_workers');
  assert.deepEqual([workers.type, workers.min, workers.max, workers.default], ['number', 1, 8, 2]);
  assert.deepEqual([field(a, 'echo_debug').type, field(a, 'echo_debug').default], ['boolean', false]);
  const matches = (id: string, v: string) => matchesWhole(field(a, id).pattern ?? '', v);
  assert.ok(matches('echo_fqdn', 'app.example.org'));
  assert.ok(!matches('echo_fqdn', 'not a host'));
  assert.ok(matches('echo_ip', '192.168.1.20'));
  assert.ok(!matches('echo_ip', '300.1.1.1'));
  assert.equal(field(a, 'echo_url').type, 'url');
  const mode = field(a, 'echo_mode');
  assert.equal(mode.type, 'select');
  assert.deepEqual(mode.options, [
    { value: 'fast', label: 'Fast' },
    { value: 'safe', label: 'Safe' },
  ]);
  assert.equal(mode.default, 'safe');
  assert.equal(field(a, 'echo_code').pattern, '[a-z]{3}');
});

test('a regex RE2 can match is kept, even a catastrophic one for a backtracking engine; a lookahead or backreference refuses the app', () => {
  const notes = new Set<string>();
  const tipi = (regex: string) => formField({ type: 'text', label: 'X', regex, env_variable: 'X_CODE' }, 'x_code', notes);
  assert.equal(tipi('^(x+x+)+y$').pattern, '(x+x+)+y');
  for (const [regex, why] of [
    ['^(?=x)x+$', /regex "\^\(\?=x\)x\+\$", which Kade cannot check: .*`\(\?=`/],
    ['^(a)\\1$', /invalid escape sequence: `\\1`/],
  ] as const)
    assert.throws(
      () => tipi(regex),
      (e: Error) => e.message.startsWith('form field X_CODE has the regex') && why.test(e.message),
    );
  assert.deepEqual([...notes], []);
});

test('random fields (hex and base64) are generated secrets: a value at install, kept in .env, never in the compose file', () => {
  const a = app('echo-tipi');
  for (const id of ['echo_session_key', 'echo_cookie_secret']) {
    const f = field(a, id);
    assert.deepEqual([f.type, f.secret, f.generate, f.required], ['password', true, true, false], id);
  }
  assert.deepEqual([field(a, 'echo_session_key').generate_encoding, field(a, 'echo_session_key').min_length], ['hex', 32]);
  assert.equal(field(a, 'echo_cookie_secret').generate_encoding, 'base64url');
  const r = renderWithDefaults(a);
  assert.match(r.env.ECHO_SESSION_KEY ?? '', /^[0-9a-f]{32}$/);
  assert.match(r.env.ECHO_COOKIE_SECRET ?? '', /^[A-Za-z0-9_-]{32}$/);
  // Runtipi's min: a longer value where the source asks for one.
  assert.match(renderWithDefaults(app('dyn-tipi')).env.DYN_DB_PASSWORD ?? '', /^[0-9a-f]{40}$/);
  assert.notEqual(r.env.ECHO_SESSION_KEY, r.env.ECHO_COOKIE_SECRET);
  const env = parse(r.compose).services['echo-tipi'].environment as string[];
  assert.ok(env.includes('ECHO_SESSION_KEY=${ECHO_SESSION_KEY}'));
  assert.ok(!r.compose.includes(r.env.ECHO_SESSION_KEY as string));
});

test('platform variables: APP_DATA_DIR is the data folder, APP_PORT the web port field, APP_DOMAIN/APP_PROTOCOL fields, TZ left to Kade', () => {
  const a = app('echo-tipi');
  const port = field(a, 'app_port');
  assert.deepEqual([port.type, port.default, port.required], ['port', 8765, true]);
  assert.equal(a.template.web?.port_field, 'app_port');
  const r = renderWithDefaults(a);
  const svc = parse(r.compose).services['echo-tipi'];
  assert.deepEqual(svc.ports, ['127.0.0.1:8765:8080']);
  assert.deepEqual(svc.volumes, [`${CHECK_DATA_DIR}/echo-tipi/data:/data`]);
  assert.ok(svc.environment.includes('ECHO_URL=http://localhost'));
  // Kade's own TZ (the install's timezone), not Runtipi's variable.
  assert.ok(svc.environment.includes('TZ=UTC'));
  assert.ok(!r.compose.includes('APP_'));
});

test('traefik and runtipi labels and the tipi_main_network are dropped and reported; other labels stay', () => {
  const a = app('echo-tipi');
  const doc = parse(renderWithDefaults(a).compose);
  assert.deepEqual(doc.services['echo-tipi'].labels, { 'org.example.keep': 'yes', 'kade.test': '1' });
  // Runtipi names the container after the app; Kade's installs of it would collide, and the service name resolves the same.
  assert.equal(doc.services['echo-tipi'].container_name, undefined);
  assert.equal(doc.services['echo-tipi'].networks, undefined);
  assert.equal(doc.networks, undefined);
  assert.ok(a.notes.some((n) => n.includes('proxy')));
  assert.ok(a.notes.some((n) => n.includes('network')));
});

test('`{{` in the source stays literal text: in the compose file, in a description and in a default', () => {
  const a = app('echo-tipi');
  const r = renderWithDefaults(a);
  const cmd = parse(r.compose).services['echo-tipi'].command as string[];
  assert.equal(cmd[2], 'mkdir -p /www && echo "$$ECHO_GREETING {{not-a-tag}}" > /www/index.html && exec httpd -f -p 8080 -h /www');
  assert.match(String(a.template.description), /\{\{braces\}\}/);
  const env = parse(r.compose).services['echo-tipi'].environment as string[];
  assert.ok(env.includes('ECHO_GREETING=Hello {{name}}'), env.join(' '));
});

test('categories come from the source (network) and the words; the description joins short_desc and description', () => {
  const a = app('echo-tipi');
  assert.deepEqual(a.template.metadata.categories, ['network']);
  assert.deepEqual(a.template.tags, ['utilities', 'network']);
  assert.match(String(a.template.description), /^Greets you over HTTP\n\nA tiny web server/);
  assert.deepEqual(app('dyn-tipi').template.metadata.categories, ['photos']);
});

test('the dynamic docker-compose.json becomes compose: main service on APP_PORT, volumes, added ports, depends_on, a generated database password', () => {
  const a = app('dyn-tipi');
  const r = renderWithDefaults(a);
  const doc = parse(r.compose);
  const main = doc.services['dyn-tipi'];
  assert.deepEqual(main.ports, ['8766:80', '5353:53/udp']);
  assert.deepEqual(main.volumes, [`${CHECK_DATA_DIR}/dyn-tipi/data/photos:/photos:ro`]);
  assert.deepEqual(main.depends_on, ['dyn-tipi-db']);
  assert.equal(main.environment.DB_PASSWORD, '${DYN_DB_PASSWORD}');
  assert.equal(doc.services['dyn-tipi-db'].environment.POSTGRES_PASSWORD, '${DYN_DB_PASSWORD}');
  assert.match(r.env.DYN_DB_PASSWORD ?? '', /^[0-9a-f]{40}$/);
  assert.equal(field(a, 'port_53').type, 'port');
});

test('each imported Runtipi app renders to a file the compose CLI accepts', async () => {
  for (const a of tree.apps) {
    const r = renderWithDefaults(a);
    assert.equal(await composeCheck(a.id, r.compose, r.env), null, a.id);
  }
});
