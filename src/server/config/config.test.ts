import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig, parseEngineEndpoint, prepareDirs } from './config.ts';
import { detectTimezone } from './timezone.ts';

test('paths derive from BASE_DIR and SVC_DATA; SVC_JOBS defaults under SVC_DATA', () => {
  const c = loadConfig({ BASE_DIR: '/srv/kade', SVC_DATA: '/var/lib/kade' });
  assert.equal(c.libraryDir, '/srv/kade/stacks');
  assert.equal(c.dataDir, '/srv/kade/appdata');
  assert.equal(c.backupDir, '/srv/kade/backups');
  assert.equal(c.jobsDir, '/var/lib/kade/jobs');
  assert.equal(c.port, 8420);
  assert.equal(c.bind, '127.0.0.1');
  assert.equal(loadConfig({ SVC_JOBS: '/x/jobs' }).jobsDir, '/x/jobs');
});

test('bad environment values are named', () => {
  assert.throws(() => loadConfig({ SVC_PORT: 'abc' }), /SVC_PORT/);
  assert.throws(() => loadConfig({ SVC_PORT: '70000' }), /SVC_PORT/);
  assert.throws(() => parseEngineEndpoint('ssh://host'), /DOCKER_HOST/);
  assert.deepEqual(parseEngineEndpoint('tcp://127.0.0.1:2375'), { host: '127.0.0.1', port: 2375 });
  assert.deepEqual(parseEngineEndpoint('unix:///run/docker.sock'), { socketPath: '/run/docker.sock' });
});

test('a folder that cannot be made is a clear message naming the variable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-cfg-'));
  writeFileSync(join(dir, 'file'), '');
  const c = loadConfig({ BASE_DIR: join(dir, 'file', 'base'), SVC_DATA: join(dir, 'data') });
  assert.throws(() => prepareDirs(c), /BASE_DIR .* cannot be created or is not writable; set BASE_DIR/);
  assert.throws(() => prepareDirs(loadConfig({ BASE_DIR: '/proc/kade', SVC_DATA: join(dir, 'data') })), /BASE_DIR \(\/proc\/kade\) lies in a system folder/);
  rmSync(dir, { recursive: true, force: true });
});

test('start-up with an unusable folder prints one line and exits 1, no stack trace', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    env: { ...process.env, BASE_DIR: '/etc/hostname/base', SVC_PORT: '1' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^kade: cannot start: BASE_DIR \(\/etc\/hostname\/base\) cannot be created/m);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('time zone: TZ first, then /etc/timezone, then the /etc/localtime link', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-tz-'));
  const files = { timezone: join(dir, 'timezone'), localtime: join(dir, 'localtime') };
  assert.equal(detectTimezone('Europe/Amsterdam', files), 'Europe/Amsterdam');
  assert.equal(detectTimezone(undefined, files), 'UTC');
  symlinkSync('/usr/share/zoneinfo/Asia/Tokyo', files.localtime);
  assert.equal(detectTimezone(undefined, files), 'Asia/Tokyo');
  writeFileSync(files.timezone, 'America/New_York\n');
  assert.equal(detectTimezone('', files), 'America/New_York');
  assert.equal(detectTimezone('../../etc/passwd', files), 'America/New_York');
  rmSync(dir, { recursive: true, force: true });
});
