import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { lintRepo } from './lint.ts';

const root = mkdtempSync(join(tmpdir(), 'kade-lint-'));
after(() => rmSync(root, { recursive: true, force: true }));

function lint(template: object, compose: string): string[] {
  const dir = mkdtempSync(join(root, 'repo-'));
  mkdirSync(join(dir, 'app'));
  writeFileSync(join(dir, 'app', 'template.json'), JSON.stringify({ name: 'App', version: '1', ...template }));
  writeFileSync(join(dir, 'app', 'docker-compose.yml'), compose);
  return lintRepo(dir).findings.map((f) => `${f.level}:${f.rule}`);
}

const port = { id: 'port', label: 'Port', type: 'port', default: 8080 };
const web = 'services:\n  web:\n    image: x\n    ports:\n      - "{{port}}:80"\n';

test('a clean template has no findings', () => {
  assert.deepEqual(lint({ fields: [port] }, web), []);
});

test('a port field must be the host side of a published port', () => {
  assert.ok(lint({ fields: [port, { ...port, id: 'other' }] }, web).includes('error:real-port-field'));
  assert.ok(lint({ fields: [{ id: 'port', label: 'P', default: 8080 }] }, web).includes('warning:real-port-field'));
});

test('a URL-like default must point to a port the app uses', () => {
  const ok = { id: 'base_url', label: 'URL', default: 'http://localhost:80' };
  assert.deepEqual(lint({ fields: [port, ok] }, web), []);
  assert.ok(lint({ fields: [port, { ...ok, default: 'http://localhost:9999/x' }] }, web).includes('error:url-default-port'));
});

test('generate only where a made-up value is right', () => {
  assert.ok(lint({ fields: [port, { id: 'api_token', label: 'T', secret: true, generate: true }] }, web).includes('error:generate'));
  assert.ok(lint({ fields: [port, { id: 'n', label: 'N', type: 'number', generate: true }] }, web).includes('error:generate'));
  assert.deepEqual(lint({ fields: [port, { id: 'db_password', label: 'D', secret: true, generate: true }] }, web), []);
});

test('secrets stay out of ports and paths; every app keeps a visible field; categories are known', () => {
  const secretPath = 'services:\n  web:\n    image: x\n    ports:\n      - "{{port}}:80"\n    volumes:\n      - "/srv/{{pw}}:/data"\n';
  assert.ok(lint({ fields: [port, { id: 'pw', label: 'P', secret: true }] }, secretPath).includes('error:secret-placement'));
  assert.ok(lint({ fields: [{ ...port, advanced: true }] }, web).includes('error:visible-field'));
  assert.ok(lint({ fields: [port], metadata: { categories: ['nope'] } }, web).includes('error:category'));
  assert.ok(lint({ fields: [port], web: { port_field: 'nope' } }, web).includes('error:web-port'));
});

test('broken templates are reported, not thrown', () => {
  assert.deepEqual(lint({ fields: [port] }, 'services: [\n'), ['error:load']);
  assert.deepEqual(lint({ fields: [port] }, 'services:\n  a:\n    image: "{{nope}}"\n'), ['error:load']);
  assert.deepEqual(lint({ fields: [port], bogus: 1 }, web), ['error:load']);
});

test('a connect value is used whole: a scheme before it or a port after it is refused', () => {
  const conn = { id: 'ollama_url', label: 'O', connect: { app: 'app', scheme: 'http', port: 11434 } };
  const env = (v: string) => `${web}    environment:\n      URL: "${v}"\n`;
  assert.deepEqual(lint({ fields: [port, conn] }, env('{{ollama_url}}')), []);
  assert.deepEqual(lint({ fields: [port, conn] }, env('{{ollama_url_host}}:{{ollama_url_port}}')), []);
  assert.ok(lint({ fields: [port, conn] }, env('http://{{ollama_url}}:11434')).includes('error:connect-value'));
  assert.ok(lint({ fields: [port, conn] }, env('{{ollama_url}}:11434')).includes('error:connect-value'));
  assert.ok(lint({ fields: [port, conn] }, env('postgres://u:p@{{ollama_url}}/db')).includes('error:connect-value'));
  assert.ok(lint({ fields: [port, conn, { id: 'ollama_url_host', label: 'H' }] }, env('{{ollama_url}}')).includes('error:connect-value'));
});

test("binds: below a path field, the app folder or a named volume; the host's own places and devices other than serial/video are powers (a warning), other literal host paths errors", () => {
  const data = { id: 'appdata_dir', label: 'Data', type: 'path' };
  const withVolumes = (lines: string) => `${web}    volumes:\n${lines}`;
  const clean = withVolumes('      - "{{appdata_dir}}/db:/db"\n      - "./conf:/conf"\n      - "cache:/cache"\n');
  assert.deepEqual(lint({ fields: [port, data] }, clean), []);
  assert.deepEqual(lint({ fields: [port, data] }, withVolumes('      - "/etc/localtime:/etc/localtime:ro"\n')), [], 'the time zone, read-only, is no power');
  for (const power of [
    '      - "/etc/localtime:/etc/localtime"\n',
    '      - "/var/run/docker.sock:/s"\n',
    '      - "/:/host:ro"\n',
    '      - "/etc/passwd:/etc/passwd:ro"\n',
    '      - "/dev/net/tun:/dev/net/tun"\n',
    '      - "/var/run:/var/run:ro"\n',
    '      - "/run/dbus:/run/dbus"\n',
  ]) {
    assert.deepEqual(lint({ fields: [port, data] }, withVolumes(power)), ['warning:host-power'], power);
  }
  assert.deepEqual(lint({ fields: [port] }, `${web}    devices: ["/dev/kvm:/dev/kvm"]\n`), ['warning:host-power']);
  // `/` writable holds Kade's own files: no install allows it, whoever confirms (bind-structure.ts).
  for (const root of ['      - "/:/host"\n', '      - type: bind\n        source: /\n        target: /host\n']) {
    assert.deepEqual(lint({ fields: [port, data] }, withVolumes(root)), ['error:bind-source'], root);
  }
  for (const bad of ['      - "/srv/media:/media"\n', '      - "../other:/o"\n', '      - "/srv/{{appdata_dir}}:/x"\n']) {
    assert.ok(lint({ fields: [port, data] }, withVolumes(bad)).includes('error:bind-source'), bad);
  }
  assert.deepEqual(lint({ fields: [port] }, `${web}    devices: ["/dev/ttyUSB0:/dev/ttyUSB0"]\n`), []);
  assert.ok(lint({ fields: [port] }, `${web}    env_file: /etc/environment\n`).includes('error:bind-source'));
});
