import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { connectTarget, type PortBindingLike } from '../../shared/connect.ts';
import { loadTemplate } from './load.ts';
import { allFields, renderTemplate } from './render.ts';
import { resolveValues } from './values.ts';

// Connect fields end to end: the target app is rendered, its published port read from its compose
// file as the engine would publish it, the address built as the form builds it, and the connecting
// app rendered with that value. The exact address in the connecting app's compose file is checked.

const ctx = { dataDir: '/srv/appdata', uid: 1000, gid: 1000 };

function render(app: string, input: Record<string, string | number | boolean>) {
  const { template, compose } = loadTemplate(`examples/apps/${app}`, app);
  const values = resolveValues(template, input, { ...ctx, name: app });
  const out = renderTemplate({ template, compose, values, timezone: 'UTC' });
  return { template, doc: parse(out.compose) as { services: Record<string, Record<string, unknown>> }, env: out.env };
}

/** `"15432:5432"` and `"127.0.0.1:15432:5432"` as the engine lists them. */
function bindings(doc: { services: Record<string, Record<string, unknown>> }): PortBindingLike[] {
  return Object.values(doc.services).flatMap((s) =>
    ((s.ports as string[] | undefined) ?? []).map((p) => {
      const parts = String(p).split(':');
      return { host_ip: parts.length === 3 ? (parts[0] ?? null) : null, host_port: Number(parts.at(-2)), container_port: Number(parts.at(-1)) };
    }),
  );
}

const connectOf = (app: string, id: string) => {
  const f = allFields(loadTemplate(`examples/apps/${app}`, app).template).find((x) => x.id === id);
  if (!f?.connect) throw new Error(`${app}.${id} is not a connect field`);
  return f.connect;
};

test('open-webui reaches ollama at the port ollama publishes on the host', () => {
  const ollama = render('ollama', { publish_enabled: true, port: 21434 });
  const target = connectTarget(connectOf('open-webui', 'ollama_url'), bindings(ollama.doc));
  assert.deepEqual(target, { address: 'http://host.docker.internal:21434' });
  const webui = render('open-webui', { ollama_url: 'address' in target ? target.address : '' });
  const svc = webui.doc.services['open-webui'] as { environment: Record<string, string>; extra_hosts: string[] };
  assert.equal(svc.environment.OLLAMA_BASE_URL, 'http://host.docker.internal:21434');
  assert.deepEqual(svc.extra_hosts, ['host.docker.internal:host-gateway']);
});

test('an ollama that publishes no port offers no address', () => {
  const ollama = render('ollama', { publish_enabled: false });
  assert.deepEqual(connectTarget(connectOf('open-webui', 'ollama_url'), bindings(ollama.doc)), { problem: 'not_published' });
  assert.deepEqual(connectTarget({ scheme: 'http', port: 11434 }, [{ host_ip: '127.0.0.1', host_port: 21434, container_port: 11434 }]), {
    problem: 'loopback_only',
  });
});

test('miniflux reaches postgres at its published port, with user, password and database in the URL', () => {
  const pg = render('postgres', { publish_enabled: true, port: 15432, postgres_password: 'pw' });
  const target = connectTarget(connectOf('miniflux', 'database'), bindings(pg.doc));
  assert.deepEqual(target, { address: 'postgres://host.docker.internal:15432' });
  const mf = render('miniflux', { database: 'address' in target ? target.address : '', database_password: 'pw', admin_password: 'secret-pw' });
  const svc = mf.doc.services.miniflux as { environment: Record<string, string>; extra_hosts: string[] };
  assert.equal(svc.environment.DATABASE_URL, 'postgres://postgres:${MINIFLUX_DB_PASSWORD}@host.docker.internal:15432/app?sslmode=disable');
  assert.equal(mf.env.MINIFLUX_DB_PASSWORD, 'pw');
  assert.deepEqual(svc.extra_hosts, ['host.docker.internal:host-gateway']);
});

test('paperless gets the host and the port of the connect value apart', () => {
  const pl = render('paperless-ngx', { database: 'postgres://host.docker.internal:15432', database_password: 'pw', consume_dir: '/srv/scans' });
  const env = (pl.doc.services.webserver as { environment: Record<string, unknown> }).environment;
  assert.equal(env.PAPERLESS_DBHOST, 'host.docker.internal');
  assert.equal(env.PAPERLESS_DBPORT, '15432');
});

test('a connect value that is not scheme://host:port is refused, naming the field', () => {
  for (const bad of ['ollama', 'http://http://ollama:11434:11434', 'https://ollama:11434', 'http://ollama', 'http://ollama:11434/api']) {
    assert.throws(
      () => render('open-webui', { ollama_url: bad }),
      (e: { code: string; fields: string[] }) => e.code === 'validation' && e.fields[0] === 'ollama_url',
      bad,
    );
  }
});
