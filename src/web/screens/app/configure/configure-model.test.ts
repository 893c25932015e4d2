import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemplateFieldT, TemplateFileT } from '../../../../shared/template.ts';
import { extraProblems, missingFields, reconfigureBody, startExtras, tagOf } from './configure-model.ts';

const field = (id: string, extra: Partial<TemplateFieldT> = {}): TemplateFieldT => ({
  id,
  label: id,
  type: 'text',
  required: false,
  secret: false,
  generate: false,
  advanced: false,
  ...extra,
});
const template = (fields: TemplateFieldT[]): TemplateFileT => ({
  format: 1,
  name: 'T',
  description: '',
  version: '1',
  tags: [],
  metadata: { categories: [] },
  fields,
  groups: [
    { id: 'db', label: 'DB', toggle: true, toggle_default: false, advanced: false, fields: [field('db_host', { required: true })] },
    { id: 'extra', label: 'Extra', toggle: false, toggle_default: true, advanced: true, fields: [field('deep', { required: true })] },
  ],
});

test('a secret the server keeps counts as filled; advanced required fields count; a switched-off group does not', () => {
  const t = template([field('message', { required: true }), field('pw', { type: 'password', secret: true, required: true })]);
  const ids = (kept: string[], values: Record<string, string>) => missingFields(t, values, new Set(kept)).map((f) => f.id);
  assert.deepEqual(ids(['pw'], { message: 'hi', pw: '', deep: '' }), ['deep']);
  assert.deepEqual(ids([], { message: ' ', pw: '', deep: 'x' }), ['message', 'pw']);
  assert.deepEqual(ids(['pw'], { message: 'hi', deep: 'x', db_enabled: 'true' } as Record<string, string>), ['db_host']);
});

test('the request leaves kept secrets out, sends numbers as numbers, every service with trimmed paths, and only changed tags', () => {
  const t = template([field('port', { type: 'port' }), field('pw', { type: 'password', secret: true })]);
  const extras = startExtras([
    {
      name: 'web',
      image: 'x:1',
      tag: null,
      volumes: [{ host: ' /srv/a ', container: '/a ', read_only: true }],
      devices: [' /dev/ttyUSB0'],
      shared_network: false,
      networks: [],
    },
    { name: 'worker', image: 'x:1', tag: '2', volumes: [], devices: [], shared_network: false, networks: [] },
  ]);
  const changed = { ...extras, worker: { tag: null, volumes: [], devices: [] } };
  const body = reconfigureBody(t, { port: '8081', pw: '' }, new Set(['pw']), changed, extras);
  assert.deepEqual(body, {
    values: { port: 8081 },
    services: {
      web: { volumes: [{ host: '/srv/a', container: '/a', read_only: true }], devices: ['/dev/ttyUSB0'] },
      worker: { tag: null, volumes: [], devices: [] },
    },
  });
});

test('half-filled folders, bad container paths and non-devices are named by the server’s field address', () => {
  const problems = extraProblems({
    web: {
      tag: null,
      volumes: [
        { host: '', container: '/data', read_only: false },
        { host: '/srv', container: 'data', read_only: false },
        { host: '/srv', container: '/', read_only: false },
        { host: '/srv', container: '/a:b', read_only: false },
        { host: '/srv', container: '/ok', read_only: false },
      ],
      devices: ['/dev/ttyACM0', 'ttyUSB0'],
    },
  });
  assert.deepEqual(problems, {
    'services.web.volumes.0.host': 'required',
    'services.web.volumes.1.container': 'absolute',
    'services.web.volumes.2.container': 'absolute',
    'services.web.volumes.3.container': 'absolute',
    'services.web.devices.1': 'device',
  });
});

test('the tag of an image reference', () => {
  assert.equal(tagOf('kade-test/busybox:1'), '1');
  assert.equal(tagOf('registry.local:5000/a/b'), 'latest');
  assert.equal(tagOf('registry.local:5000/a/b:2.1'), '2.1');
  assert.equal(tagOf('a/b@sha256:abc'), null);
  assert.equal(tagOf(null), null);
});
