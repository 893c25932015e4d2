import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { TemplateFile } from '../../shared/template.ts';
import { renderTemplate } from './render.ts';

const template = TemplateFile.parse({
  name: 'Demo',
  version: '1.0.0',
  fields: [
    { id: 'port', label: 'Port', type: 'port', default: 8080 },
    { id: 'title', label: 'Title' },
    { id: 'db_password', label: 'DB password', secret: true, generate: true },
  ],
  groups: [{ id: 'extra', label: 'Extra', toggle: true, toggle_default: false, fields: [{ id: 'extra_label', label: 'Label' }] }],
});

const compose = `services:
  web:
    image: kade-test/busybox:1
    ports:
      - "{{port}}:80"
    environment:
      TITLE: "{{title}}"
      DATABASE_URL: "postgres://app:{{db_password}}@db:5432/app"
{{#extra_enabled}}
      EXTRA: "{{extra_label}}"
    labels:
      extra: "{{extra_label}}"
{{/extra_enabled}}
volumes:
  data:
`;

const render = (values: Record<string, string | number | boolean>) => renderTemplate({ template, compose, values, timezone: 'Europe/Amsterdam' });

test('a value with a newline or YAML syntax stays one scalar and adds no key', () => {
  const out = render({ port: 8080, title: 'x"\nevil: true\n  injected: [1]', db_password: 's3cret', extra_enabled: false });
  const doc = parse(out.compose);
  assert.equal(doc.services.web.environment.TITLE, 'x"\nevil: true\n  injected: [1]');
  assert.equal(doc.evil, undefined);
  assert.deepEqual(Object.keys(doc.services.web.environment).sort(), ['DATABASE_URL', 'TITLE', 'TZ']);
});

test('secrets become ${NAME} references, also inside a URL, and go to .env', () => {
  const out = render({ port: 8080, title: 't', db_password: 'pa55word', extra_enabled: false });
  assert.ok(!out.compose.includes('pa55word'));
  assert.equal(parse(out.compose).services.web.environment.DATABASE_URL, 'postgres://app:${DB_PASSWORD}@db:5432/app');
  assert.deepEqual(out.env, { DB_PASSWORD: 'pa55word' });
  assert.deepEqual(out.secretEnv, { db_password: 'DB_PASSWORD' });
});

test('ports stay readable and $ in plain values is escaped for compose', () => {
  const out = render({ port: 9000, title: 'cost $5', db_password: 'p', extra_enabled: false });
  const doc = parse(out.compose);
  assert.deepEqual(doc.services.web.ports, ['9000:80']);
  assert.equal(doc.services.web.environment.TITLE, 'cost $$5');
});

test('a dropped block removes keys it left empty but keeps a bare named volume', () => {
  const off = parse(render({ port: 1, title: 't', db_password: 'p', extra_enabled: false }).compose);
  assert.equal(off.services.web.labels, undefined);
  assert.ok('data' in off.volumes);
  assert.equal(off.volumes.data, null);
  const on = parse(render({ port: 1, title: 't', db_password: 'p', extra_enabled: true, extra_label: 'hi' }).compose);
  assert.equal(on.services.web.labels.extra, 'hi');
  assert.equal(on.services.web.environment.EXTRA, 'hi');
});

test('TZ is added when the app has no timezone field', () => {
  const doc = parse(render({ port: 1, title: 't', db_password: 'p' }).compose);
  assert.equal(doc.services.web.environment.TZ, 'Europe/Amsterdam');
});

test('partials and undeclared names are refused: no template reaches outside its fields', () => {
  assert.throws(() => renderTemplate({ template, compose: 'services:\n  a:\n    image: "{{> other}}"\n', values: {}, timezone: 'UTC' }), {
    code: 'template_invalid',
  });
  assert.throws(
    () => renderTemplate({ template, compose: 'services:\n  a:\n    image: "{{constructor}}"\n', values: {}, timezone: 'UTC' }),
    /not a declared field/,
  );
});

test('invalid YAML after rendering is refused', () => {
  assert.throws(() => renderTemplate({ template, compose: 'services: [\n', values: {}, timezone: 'UTC' }), { code: 'template_invalid' });
});

test('templates over the size limit or nested too deep are refused', () => {
  const big = `services:\n  a:\n    image: x\n#${'x'.repeat(256 * 1024)}\n`;
  assert.throws(() => renderTemplate({ template, compose: big, values: {}, timezone: 'UTC' }), /larger than/);
  const deep = `${'{{#title}}'.repeat(9)}services: {}${'{{/title}}'.repeat(9)}`;
  assert.throws(() => renderTemplate({ template, compose: deep, values: { title: 'x' }, timezone: 'UTC' }), /nested deeper/);
});

test('a field named like an Object property reaches nothing inherited', () => {
  const t = TemplateFile.parse({
    name: 'x',
    version: '1',
    fields: [
      { id: 'constructor', label: 'c' },
      { id: 'tostring', label: 't' },
    ],
  });
  const out = renderTemplate({
    template: t,
    compose: 'services:\n  a:\n    image: "x{{constructor}}y"\n{{#constructor}}    labels: {a: b}\n{{/constructor}}',
    values: {},
    timezone: 'UTC',
  });
  const doc = parse(out.compose);
  assert.equal(doc.services.a.image, 'xy');
  assert.equal(doc.services.a.labels, undefined);
});

test('YAML anchors and aliases cannot blow up the document', () => {
  const bomb =
    'x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\nx-b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nx-c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nx-d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\nx-e: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nservices:\n  a:\n    image: x\n';
  assert.throws(() => renderTemplate({ template, compose: bomb, values: {}, timezone: 'UTC' }), { code: 'template_invalid' });
});
