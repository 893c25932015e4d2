import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TemplateFile } from '../../shared/template.ts';
import { templatePowers } from './app-powers.ts';

const template = (fields: unknown[] = []) => TemplateFile.parse({ name: 'X', version: '1.0.0', fields });
const DATA = { id: 'appdata_dir', label: 'Data folder', type: 'path', required: true };
const svc = (lines: string) => `services:\n  web:\n    image: busybox\n${lines}`;

test('the store names each power of an app with its start values: the engine socket, host paths it binds, the others', () => {
  const compose = svc(
    [
      '    pid: host',
      '    volumes:',
      '      - "/var/run/docker.sock:/var/run/docker.sock:ro"',
      '      - "/:/rootfs:ro"',
      '      - "/etc/passwd:/etc/passwd"',
      '      - "/etc/localtime:/etc/localtime:ro"',
      '      - "{{appdata_dir}}/conf:/conf"',
      '      - "./local:/local"',
      '      - "cache:/cache"',
      '    devices: ["/dev/net/tun"]',
      '',
    ].join('\n'),
  );
  assert.deepEqual(templatePowers(template([DATA]), compose), [
    { power: 'pid', value: 'host', read_only: false },
    { power: 'devices', value: '/dev/net/tun', read_only: false },
    { power: 'engine_socket', value: '/var/run/docker.sock', read_only: false },
    { power: 'host_path', value: '/', read_only: true },
    { power: 'host_path', value: '/etc/passwd', read_only: false },
  ]);
});

test('a bind of /var/run or /run, which hold the engine socket, is the engine socket power and the host path it is', () => {
  const compose = svc(['    volumes:', '      - "/var/run:/var/run:ro"', '      - "/run/dbus:/run/dbus"', '      - "{{appdata_dir}}:/data"', ''].join('\n'));
  assert.deepEqual(templatePowers(template([DATA]), compose), [
    { power: 'engine_socket', value: '/var/run/docker.sock', read_only: false },
    { power: 'host_path', value: '/var/run', read_only: true },
    { power: 'host_path', value: '/run/dbus', read_only: false },
  ]);
  assert.deepEqual(templatePowers(template([DATA]), svc('    volumes: ["/run:/run"]\n')), [
    { power: 'engine_socket', value: '/run/docker.sock', read_only: false },
    { power: 'host_path', value: '/run', read_only: false },
  ]);
});

test('no power: the data folder, a folder typed in a field, the time zone read-only, a section switched off by default', () => {
  const media = { id: 'media_dir', label: 'Media', type: 'path', default: '/srv/media' };
  const priv = { id: 'priv', label: 'Privileged', type: 'boolean', default: false };
  const compose = svc(
    [
      '{{#priv}}',
      '    privileged: true',
      '{{/priv}}',
      '    volumes:',
      '      - "{{appdata_dir}}:/data"',
      '      - "{{media_dir}}:/media"',
      '      - "/etc/timezone:/etc/timezone:ro"',
      '',
    ].join('\n'),
  );
  assert.deepEqual(templatePowers(template([DATA, media, priv]), compose), []);
  assert.deepEqual(templatePowers(template([DATA, media, { ...priv, default: true }]), compose), [{ power: 'privileged', value: 'true', read_only: false }]);
});

test('a compose file that does not parse gives no powers (the catalogue leaves the app out with its reason)', () => {
  assert.deepEqual(templatePowers(template(), 'services: [\n'), []);
});
