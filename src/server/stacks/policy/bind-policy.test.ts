import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AppError } from '../../core/errors.ts';
import type { DomainEvent } from '../../core/events.ts';
import { allowedDirProblem, type BindRules } from '../../settings/bind-rules.ts';
import { enforceCompose, judgeDevice, judgePath } from './bind-policy.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'kade-binds-')));
after(() => undefined);
const base = join(root, 'base');
const media = join(root, 'media');
const rules: BindRules = {
  dataDir: join(base, 'appdata'),
  libraryDir: join(base, 'stacks'),
  stateDir: join(root, 'state'),
  backupDir: join(base, 'backups'),
  engineSocket: '/var/run/docker.sock',
  allowedHostDirs: () => [media, '/', '/etc'],
};
for (const d of [
  rules.dataDir,
  rules.libraryDir,
  rules.stateDir,
  media,
  join(rules.dataDir, 'blog'),
  join(rules.dataDir, 'shop'),
  join(rules.libraryDir, 'shop'),
]) {
  mkdirSync(d, { recursive: true });
}
// A link inside the app's own data folder that leads out of it, and one in an allowed folder that leads into Kade's state.
symlinkSync('/etc', join(rules.dataDir, 'blog', 'etc-link'));
symlinkSync(rules.stateDir, join(media, 'state-link'));
symlinkSync(join(rules.dataDir, 'blog'), join(root, 'into-blog'));

const scope = { app: 'blog', stackDir: join(rules.libraryDir, 'blog') };
const ok = (raw: string) => judgePath(raw, scope, rules).ok;

test('allowed: the app own data folder (any depth, trailing slash, `//`), its own folder by ./x, and an admin-listed folder', () => {
  for (const p of [
    join(rules.dataDir, 'blog'),
    `${join(rules.dataDir, 'blog')}/`,
    `${join(rules.dataDir, 'blog')}//db/./x`,
    join(rules.dataDir, 'blog', 'new', 'folder'),
    './config',
    'data',
    media,
    join(media, 'films'),
  ]) {
    assert.equal(ok(p), true, p);
  }
});

test('refused: the host, system folders, the socket, Kade own folders, another app, `..` out, links out, ~ and relative escapes', () => {
  for (const p of [
    '/',
    '/etc',
    '/etc/',
    '/root',
    '/home',
    '/usr',
    '/var/lib/docker',
    '/var/run/docker.sock',
    '/run',
    '/proc/1',
    rules.dataDir,
    `${rules.dataDir}/`,
    rules.stateDir,
    join(rules.stateDir, 'kade.db'),
    rules.libraryDir,
    rules.backupDir,
    join(rules.dataDir, 'shop'),
    join(rules.dataDir, 'blog', '..', 'shop'),
    `${join(rules.dataDir, 'blog')}/../../appdata/shop`,
    join(rules.dataDir, 'blog', 'etc-link'),
    join(rules.dataDir, 'blog', 'etc-link', 'shadow'),
    join(media, 'state-link'),
    join(root, 'into-blog'),
    '../shop',
    './../../appdata/shop',
    '~/x',
    '',
  ]) {
    assert.equal(ok(p), false, p);
  }
});

test('another app folder is named; a stray folder under DATA_DIR is not', () => {
  const j = judgePath(join(rules.dataDir, 'shop', 'db'), scope, rules);
  assert.deepEqual(j, { ok: false, path: join(rules.dataDir, 'shop', 'db'), otherApp: 'shop' });
  const stray = judgePath(join(rules.dataDir, 'ghost'), scope, rules);
  assert.equal(stray.ok, false);
  assert.equal(!stray.ok && stray.otherApp, null);
});

test('devices: serial and video devices under /dev; /dev/vda, /dev/kvm, /dev/mem, /dev itself and paths out of /dev are refused', () => {
  for (const d of ['/dev/ttyUSB0', '/dev/ttyACM1', '/dev/video0', '/dev/dri', '/dev/dri/renderD128', join(media, 'tty0')]) {
    assert.equal(judgeDevice(d, scope, rules).ok, true, d);
  }
  for (const d of ['/dev/vda', '/dev/kvm', '/dev/mem', '/dev', '/dev/sda1', '/dev/dri/../kvm', '/etc/passwd', 'ttyUSB0', '/dev//mem']) {
    assert.equal(judgeDevice(d, scope, rules).ok, false, d);
  }
});

test('ALLOWED_HOST_DIRS entries: absolute, never /, a system folder, the socket or Kade own folders; invalid stored ones are ignored', () => {
  const k = { engineSocket: '/var/run/docker.sock', stateDir: rules.stateDir, libraryDir: rules.libraryDir, backupDir: rules.backupDir };
  for (const bad of [
    '/',
    'media',
    '/etc',
    '/etc/ssl',
    '/proc',
    '/sys',
    '/boot',
    '/dev',
    '/dev/dri',
    '/var/run',
    '/run',
    rules.stateDir,
    rules.libraryDir,
    rules.backupDir,
    root,
  ]) {
    assert.notEqual(allowedDirProblem(bad, k), null, bad);
  }
  assert.equal(allowedDirProblem(media, k), null);
  assert.equal(allowedDirProblem('/srv/media/', k), null);
  // '/' and '/etc' are in the list the rules read, and still allow nothing.
  assert.equal(ok('/etc/passwd'), false);
});

const compose = (volumes: string) => `services:\n  web:\n    image: x\n${volumes}`;
const events: DomainEvent[] = [];
const bus = { emit: (e: DomainEvent) => events.push(e), subscribe: () => () => undefined } as never;
const operator = { user: 'op', role: 'operator' as const, ip: '127.0.0.1' };
const admin = { user: 'ad', role: 'admin' as const, ip: '127.0.0.1' };
const refusal = (fn: () => void): AppError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  assert.fail('not refused');
};

test('the final document: short and long syntax, driver_opts binds, env_file, secrets, devices, merge keys and interpolation', () => {
  const docs = [
    compose('    volumes: ["/:/host"]'),
    compose('    volumes: [{ type: bind, source: /etc, target: /x }]'),
    compose('    env_file: /etc/environment'),
    compose('    devices: ["/dev/kvm:/dev/kvm"]'),
    compose('    volumes: ["${ROOT}:/host"]'),
    compose('    volumes: ["${NOPE:-/root}:/host"]'),
    compose('    build: /'),
    `${compose('    volumes: [data:/data]')}\nvolumes:\n  data:\n    driver_opts: { type: none, o: bind, device: /var/lib/docker }\n`,
    `${compose('')}\nsecrets:\n  s:\n    file: /etc/shadow\n`,
    `x-v: &v\n  volumes: ["/root:/r"]\nservices:\n  web:\n    image: x\n    <<: *v\n`,
    compose('    volumes_from: ["container:kade"]'),
  ];
  for (const text of docs) {
    const e = refusal(() => enforceCompose(text, { ROOT: '/' }, scope, rules, { actor: operator, events: bus }));
    assert.equal(e.code, 'forbidden_path', text);
    assert.equal(e.params.reason, 'not_allowed', text);
    assert.equal(e.params.confirm, undefined, 'an operator gets no way to confirm');
  }
  // Another app's named volume, external or named explicitly, is that app's data.
  for (const text of [
    `${compose('    volumes: [d:/d]')}\nvolumes:\n  d: { external: true, name: shop_db }\n`,
    `${compose('    volumes: [shop:/d]')}\nvolumes:\n  shop: { external: true }\n`,
    `${compose('    volumes: [d:/d]')}\nvolumes:\n  d: { name: shop_db }\n`,
  ]) {
    const e = refusal(() => enforceCompose(text, {}, scope, rules, { actor: admin, confirm: ['shop_db', 'shop'], events: bus }));
    assert.equal(e.params.reason, 'other_app', text);
    assert.equal(e.params.app, 'shop', text);
  }
  enforceCompose(`${compose('    volumes: [d:/d]')}\nvolumes:\n  d: { name: blog_db }\n`, {}, scope, rules, { actor: operator, events: bus });
  enforceCompose(compose('    volumes_from: [db]'), {}, scope, rules, { actor: operator, events: bus });
  // Allowed: own data folder through a variable, named volumes, the app's own folder, a network share.
  const fine = `${compose(`    volumes: ["\${DATA}/db:/db", "cache:/cache", "./conf:/conf"]\n    env_file: .env`)}\nvolumes:\n  cache: {}\n  share:\n    driver_opts: { type: nfs, o: "addr=10.0.0.2", device: ":/export" }\n`;
  enforceCompose(fine, { DATA: join(rules.dataDir, 'blog') }, scope, rules, { actor: operator, events: bus });
});

test('one message whatever the reason: an existing system folder and a missing path read the same', () => {
  const a = refusal(() => enforceCompose(compose('    volumes: ["/etc:/x"]'), {}, scope, rules, { actor: operator, events: bus }));
  const b = refusal(() => enforceCompose(compose('    volumes: ["/no/such/place:/x"]'), {}, scope, rules, { actor: operator, events: bus }));
  assert.equal(a.message.replace('/etc', 'P'), b.message.replace('/no/such/place', 'P'));
  assert.deepEqual(Object.keys(a.params).sort(), Object.keys(b.params).sort());
});

test('an admin allows outside paths only by confirming exactly them, and that is audited', () => {
  const text = compose('    volumes: ["/srv/photos:/photos", "/opt/x//:/x"]');
  const e = refusal(() => enforceCompose(text, {}, scope, rules, { actor: admin, events: bus }));
  assert.equal(e.params.confirm, '/srv/photos\n/opt/x');
  refusal(() => enforceCompose(text, {}, scope, rules, { actor: admin, confirm: ['/srv/photos'], events: bus }));
  refusal(() => enforceCompose(text, {}, scope, rules, { actor: admin, confirm: ['/srv/photos', '/opt/x', '/'], events: bus }));
  refusal(() => enforceCompose(text, {}, scope, rules, { actor: operator, confirm: ['/srv/photos', '/opt/x'], events: bus }));
  events.length = 0;
  enforceCompose(text, {}, scope, rules, { actor: admin, confirm: ['/opt/x/', '/srv/photos'], events: bus });
  assert.equal(events.length, 1);
  assert.equal(events[0]?.type, 'stack.outside_path_allowed');
  assert.equal(events[0]?.detail?.paths, '/srv/photos, /opt/x');
  // Another app's data folder stays refused even with a confirmation, naming the app.
  const other = refusal(() =>
    enforceCompose(compose(`    volumes: ["${join(rules.dataDir, 'shop')}:/x"]`), {}, scope, rules, {
      actor: admin,
      confirm: [join(rules.dataDir, 'shop')],
      events: bus,
    }),
  );
  assert.equal(other.params.reason, 'other_app');
  assert.equal(other.params.app, 'shop');
  assert.match(other.message, /'shop'/);
});

test('the host time zone files bound read-only pass for everyone; bound writable, or another /etc file, they are refused', () => {
  const time = compose('    volumes: ["/etc/localtime:/etc/localtime:ro", { type: bind, source: /etc/timezone, target: /etc/timezone, read_only: true }]');
  enforceCompose(time, {}, scope, rules, { actor: operator, events: bus });
  for (const bind of ['"/etc/localtime:/etc/localtime"', '"/etc/timezone:/etc/timezone:rw"', '"/etc/passwd:/etc/passwd:ro"', '"/etc:/etc:ro"']) {
    const e = refusal(() => enforceCompose(compose(`    volumes: [${bind}]`), {}, scope, rules, { actor: operator, events: bus }));
    assert.equal(e.code, 'forbidden_path', bind);
  }
});

test('the engine socket stays outside the allow list: only an admin who confirms it gets it, audited', () => {
  const text = compose('    volumes: ["/var/run/docker.sock:/var/run/docker.sock:ro"]');
  assert.equal(
    refusal(() => enforceCompose(text, {}, scope, rules, { actor: operator, confirm: ['/var/run/docker.sock'], events: bus })).code,
    'forbidden_path',
  );
  const e = refusal(() => enforceCompose(text, {}, scope, rules, { actor: admin, events: bus }));
  assert.equal(e.params.confirm, '/var/run/docker.sock');
  events.length = 0;
  enforceCompose(text, {}, scope, rules, { actor: admin, confirm: ['/var/run/docker.sock'], events: bus });
  assert.equal(events[0]?.type, 'stack.outside_path_allowed');
});
