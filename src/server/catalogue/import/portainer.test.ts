import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { allFields } from '../../templates/render.ts';
import { detectPortainer, importPortainer, sameRepo } from './portainer.ts';
import { checkoutOf, composeProblem, DATA_DIR, lintErrors, renderDefaults } from './portainer-render-check.ts';
import type { ImportedApp } from './types.ts';

const FIXTURE = join(import.meta.dirname, '../../../../test/fixtures/import/portainer');
const ORIGIN = 'https://github.com/example/kade-portainer-fixture.git';
const root = checkoutOf(FIXTURE, ORIGIN);
after(() => rmSync(root, { recursive: true, force: true }));

const file = detectPortainer(root);
const result = importPortainer(root, file ?? '');
const app = (id: string): ImportedApp => {
  const a = result.apps.find((x) => x.id === id);
  assert.ok(a, `${id} is imported (refused: ${JSON.stringify(result.refused)})`);
  return a;
};
const field = (a: ImportedApp, id: string) => allFields(a.template).find((f) => f.id === id);

test('the templates file at the repo root is found; a folder without one is not Portainer', () => {
  assert.equal(file, join(root, 'templates.json'));
  const other = mkdtempSync(join(tmpdir(), 'kade-pt-'));
  try {
    assert.equal(detectPortainer(other), null);
    writeFileSync(join(other, 'apps.json'), JSON.stringify({ version: '3', templates: [] }));
    writeFileSync(join(other, 'package.json'), JSON.stringify({ version: '3.0.0' }));
    assert.equal(detectPortainer(other), join(other, 'apps.json'));
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test('every template is imported or refused with its reason; ids are unique app names from the titles', () => {
  assert.deepEqual(result.apps.map((a) => a.id).sort(), [
    'nginx-web-server',
    'nginx-web-server-2',
    'other-stuff',
    'portainer-agent',
    'swarm-global',
    'swarm-whoami',
    'wiki-stack',
  ]);
  const reasons = Object.fromEntries(result.refused.map((r) => [r.app, r.reason]));
  assert.deepEqual(Object.keys(reasons).sort(), ['bind-only', 'missing-stack', 'other-repo-stack']);
  // The engine socket is a power an admin allows at install, not a refusal.
  assert.ok(app('portainer-agent').compose.includes('"/var/run/docker.sock:/var/run/docker.sock"'), app('portainer-agent').compose);
  assert.equal(reasons['other-repo-stack'], 'stack file lives in another repository https://github.com/someone/else');
  // Issue #26, class 6: refused, and the report says why.
  assert.equal(reasons['bind-only'], 'a volume binds /srv/media but has no container path');
  assert.equal(reasons['missing-stack'], 'stack file stacks/missing/docker-compose.yml is not in the repository');
});

test('type 1: env entries become fields by kind: text, select with its options, secrets, presets fixed', () => {
  const a = app('nginx-web-server');
  assert.deepEqual(field(a, 'nginx_host'), {
    id: 'nginx_host',
    label: 'Host name',
    type: 'text',
    required: false,
    secret: false,
    advanced: false,
    default: 'example.org',
    info: 'The name the server answers to',
  });
  const mode = field(a, 'mode');
  assert.equal(mode?.type, 'select');
  assert.equal(mode?.default, 'prod');
  assert.deepEqual(mode?.options, [
    { value: 'dev', label: 'Development' },
    { value: 'prod', label: 'Production' },
  ]);
  const pw = field(a, 'admin_password');
  assert.equal(pw?.type, 'password');
  assert.equal(pw?.secret, true);
  assert.equal(pw?.generate, true);
  const token = field(a, 'api_token');
  assert.equal(token?.secret, true);
  assert.equal(token?.generate, undefined, 'a token is issued elsewhere: never made up');
  assert.equal(field(a, 'fixed'), undefined, 'a preset entry is no field');
});

test('type 1: ports are port fields with the container side fixed; volumes go to the data folder', () => {
  const a = app('nginx-web-server');
  assert.equal(field(a, 'port')?.default, 8080);
  assert.equal(field(a, 'port')?.type, 'port');
  assert.equal(field(a, 'port_443')?.default, undefined);
  assert.deepEqual(a.template.web, { port_field: 'port', scheme: 'http', path: '/' });
  const r = renderDefaults(a);
  const svc = r.doc.services['nginx-web-server'];
  assert.deepEqual(svc.ports, ['8080:80', '443'], 'an empty host port is left to the engine, as Portainer does');
  assert.deepEqual(renderDefaults(a, { port_443: 8443 }).doc.services['nginx-web-server'].ports, ['8080:80', '8443:443']);
  const data = `${DATA_DIR}/nginx-web-server`;
  assert.deepEqual(svc.volumes, [`${data}/srv/www:/usr/share/nginx/html:ro`, `${data}/etc/nginx/conf.d:/etc/nginx/conf.d`]);
  assert.ok(a.notes.includes('/etc/localtime dropped: Kade sets TZ'));
  assert.equal(svc.restart, 'unless-stopped');
  assert.equal(svc.hostname, 'web');
  assert.equal(app('other-stuff').compose.includes('"network_mode": "host"'), true, 'the network is kept; the policy judges it at install');
});

test('type 1: no source text is evaluated as Kade template syntax, and $ stays literal for compose', () => {
  const a = app('nginx-web-server');
  const r = renderDefaults(a);
  const svc = r.doc.services['nginx-web-server'];
  assert.equal(svc.environment.FIXED, 'a $$dollar {{fixed}}');
  assert.equal(svc.environment.GREETING, 'Hello {{name}}', 'neither mustache nor Kade fills {name} of an imported default');
  assert.equal(field(a, 'greeting')?.default, undefined);
  assert.equal(renderDefaults(a, { greeting: 'Hi' }).doc.services['nginx-web-server'].environment.GREETING, 'Hi');
  assert.equal(svc.command, `/bin/sh -c 'echo {{literal}} $$HOME && nginx -g "daemon off;"'`);
  assert.deepEqual(svc.labels, { 'com.example.vendor': 'Acme {{x}}' });
  assert.equal(svc.environment.TZ, 'Europe/Amsterdam', "Kade's time zone, not the source's default");
  assert.equal(svc.environment.PUID, '4242', "PUID starts with Kade's own id");
  assert.equal(svc.environment.ADMIN_PASSWORD, '${ADMIN_PASSWORD}');
  assert.ok((r.env.ADMIN_PASSWORD ?? '').length >= 16, 'the secret was generated into .env');
  assert.ok(a.notes.some((n) => n.includes('com.docker.compose.project')));
});

test('categories come from the source categories, tags and description, with the fallback', () => {
  assert.deepEqual(app('nginx-web-server').template.metadata.categories, ['media']);
  assert.deepEqual(app('swarm-whoami').template.metadata.categories, ['network']);
  assert.deepEqual(app('wiki-stack').template.metadata.categories, ['productivity']);
  assert.deepEqual(app('other-stuff').template.metadata.categories, ['overig']);
  const nginx = app('nginx-web-server').template;
  assert.equal(nginx.icon, 'https://example.org/logos/nginx.png');
  assert.equal(nginx.description, 'High performance web server\n\nPut your site in the data folder.');
  assert.equal(nginx.version, '1.25');
});

test('type 3: the stack file of this repo, its variables as fields, relative and host folders in the data folder', () => {
  const a = app('wiki-stack');
  assert.equal(field(a, 'wiki_port')?.type, 'port');
  assert.equal(field(a, 'wiki_port')?.default, 8090);
  assert.equal(field(a, 'db_password')?.secret, true);
  assert.equal(field(a, 'log_level')?.default, 'info', 'the ${X:-default} of a variable without an env entry');
  assert.equal(field(a, 'edition'), undefined);
  const r = renderDefaults(a);
  const wiki = r.doc.services.wiki;
  assert.equal(wiki.container_name, undefined);
  assert.deepEqual(wiki.ports, ['8090:3000']);
  assert.equal(wiki.environment.EDITION, 'community');
  assert.equal(wiki.environment.TITLE, 'My {{wiki}}');
  assert.equal(wiki.environment.LITERAL, '$$NOT_A_VAR {{not_a_field}}');
  assert.equal(wiki.environment.DB_PASS, '${DB_PASSWORD}');
  assert.equal(r.doc.services.db.environment.POSTGRES_PASSWORD, '${DB_PASSWORD}');
  assert.deepEqual(wiki.volumes, [`${DATA_DIR}/wiki-stack/data:/data`, `${DATA_DIR}/wiki-stack/opt/wiki/uploads:/uploads`]);
  assert.deepEqual(r.doc.services.db.volumes, ['db-data:/var/lib/postgresql/data']);
  assert.deepEqual(wiki.labels, ['com.example.team=docs']);
  assert.ok(a.notes.includes('label com.docker.compose.project dropped: Kade and compose set it'));
});

test('type 3: a $ of the stack file that is no variable reaches compose as $$ (issue #26, class 4)', () => {
  const db = renderDefaults(app('wiki-stack')).doc.services.db;
  assert.deepEqual(db.healthcheck.test, ['CMD-SHELL', 'pg_isready -U postgres || exit $$?']);
});

test('a port range is published as written', () => {
  const a = app('nginx-web-server-2');
  assert.deepEqual(renderDefaults(a).doc.services['nginx-web-server-2'].ports, ['8081:80', '9000-9002:9000-9002/udp']);
  assert.deepEqual(
    allFields(a.template).map((f) => f.id),
    ['port'],
  );
});

test('type 2: a swarm stack one host runs the same is imported as compose, swarm-only parts dropped', () => {
  const a = app('swarm-whoami');
  const r = renderDefaults(a);
  const svc = r.doc.services.whoami;
  assert.deepEqual(svc.deploy, { resources: { limits: { memory: '64M' } } });
  assert.equal(svc.restart, 'on-failure');
  assert.deepEqual(r.doc.networks, { net: {} });
  assert.ok(a.notes.includes('swarm-only deploy.placement dropped'));
});

test('type 2: deploy.mode global on one host is one container, as one replica would be (issue #26, class 6)', () => {
  const a = app('swarm-global');
  const svc = renderDefaults(a).doc.services.agent;
  assert.deepEqual(svc.deploy, { resources: { limits: { memory: '32M' } } });
  assert.equal(svc.restart, 'always');
  assert.deepEqual(svc.ports, ['9100:9100']);
  assert.ok(a.notes.includes('deploy.mode global: one container on this host'));
});

test('a plain folder (no git origin) cannot tell the stack file is elsewhere; a checkout of another origin refuses all stacks', () => {
  const other = checkoutOf(FIXTURE, 'git@github.com:someone/fork.git');
  try {
    const refused = importPortainer(other, join(other, 'templates.json')).refused.map((r) => r.app);
    assert.ok(refused.includes('wiki-stack'));
    assert.ok(refused.includes('swarm-whoami'));
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
  assert.ok(sameRepo('https://github.com/a/b.git', 'git@github.com:a/b'));
  assert.ok(sameRepo('https://user@github.com/A/b/', 'https://github.com/a/b'));
  assert.ok(!sameRepo('https://github.com/a/b', 'https://github.com/a/c'));
});

test('every imported app renders with its defaults into a compose file the compose CLI accepts', async () => {
  for (const a of result.apps) assert.equal(await composeProblem(renderDefaults(a), `kadetest-${a.id}`), null, a.id);
});

test("every imported app passes Kade's own template lint (ports, secrets, bind sources, generate)", () => {
  for (const a of result.apps) assert.deepEqual(lintErrors(a), [], a.id);
});
