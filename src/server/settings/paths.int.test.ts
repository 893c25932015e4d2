import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { isProblem } from '../../../test/helpers/problem.ts';
import { useSettingsServer } from '../../../test/helpers/settings-server.ts';

const suite = useSettingsServer();

describe('paths', () => {
  test('a folder outside the mounted BASE_DIR is refused with the .env line that fixes it', async () => {
    const want = join(suite.outside, 'stacks');
    const r = await suite.admin.put('/api/settings', { LIBRARY_DIR: want });
    isProblem(r, 400, 'path_unreachable');
    assert.equal(r.body.params.field, 'LIBRARY_DIR');
    assert.equal(r.body.params.reason, 'outside_base');
    assert.equal(r.body.params.fix, `BASE_DIR=${suite.outside}`);
    assert.ok(r.body.detail.includes(`BASE_DIR=${suite.outside}`), r.body.detail);
    assert.ok(r.body.detail.includes('.env'), r.body.detail);
    assert.deepEqual(r.body.fields, ['LIBRARY_DIR']);
    assert.equal((await suite.admin.get('/api/settings')).body.LIBRARY_DIR, join(suite.server.baseDir, 'stacks'));
  });

  test('system folders, relative paths and a file in the way are refused', async () => {
    const file = join(suite.server.baseDir, 'a-file');
    writeFileSync(file, 'x');
    const cases: [Record<string, string>, string, string | undefined][] = [
      [{ BASE_DIR: '/etc' }, 'system', 'BASE_DIR=/opt/kade-data'],
      [{ BASE_DIR: '/' }, 'system', 'BASE_DIR=/opt/kade-data'],
      [{ DATA_DIR: '/proc/self' }, 'system', undefined],
      [{ LIBRARY_DIR: '/var/run/docker.sock' }, 'system', undefined],
      [{ BASE_DIR: 'relative/kade' }, 'relative', 'BASE_DIR=/opt/kade-data'],
      [{ DATA_DIR: file }, 'not_a_directory', undefined],
      [{ DATA_DIR: join(file, 'below') }, 'not_creatable', undefined],
    ];
    for (const [body, reason, fix] of cases) {
      const r = await suite.admin.put('/api/settings', body);
      isProblem(r, 400, 'path_unreachable');
      assert.equal(r.body.params.reason, reason, JSON.stringify(body));
      assert.equal(r.body.params.fix, fix, JSON.stringify(body));
      if (fix) assert.ok(r.body.detail.includes(fix));
    }
    // A BASE_DIR that is not mounted: the fix is to mount exactly that folder.
    const r = await suite.admin.put('/api/settings', { BASE_DIR: join(suite.outside, 'kade') });
    assert.equal(r.body.params.fix, `BASE_DIR=${join(suite.outside, 'kade')}`);
  });

  test('a new BASE_DIR inside the mount is created; derived folders follow it; the change applies at the next start', async () => {
    const base = join(suite.server.baseDir, 'moved');
    const r = await suite.admin.put('/api/settings', { BASE_DIR: `${base}/` });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.BASE_DIR, base);
    assert.equal(r.body.LIBRARY_DIR, join(base, 'stacks'));
    assert.equal(r.body.DATA_DIR, join(base, 'appdata'));
    assert.equal(r.body.paths_in_use.LIBRARY_DIR, join(suite.server.baseDir, 'stacks'));
    const check = await suite.admin.get(`/api/paths/check?path=${encodeURIComponent(join(base, 'stacks'))}`);
    assert.equal(check.body.exists, true);

    // A derived folder set on its own stays when BASE_DIR moves on.
    const own = join(suite.server.baseDir, 'my-data');
    assert.equal((await suite.admin.put('/api/settings', { DATA_DIR: own })).body.DATA_DIR, own);
    const moved = await suite.admin.put('/api/settings', { BASE_DIR: join(suite.server.baseDir, 'again') });
    assert.equal(moved.body.DATA_DIR, own);
    assert.equal(moved.body.LIBRARY_DIR, join(suite.server.baseDir, 'again', 'stacks'));
  });

  test('a folder left unchanged never blocks the save, even when it cannot be reached now', async () => {
    const gone = join(suite.outside, 'unplugged-disk', 'backups');
    suite.withDb((db) =>
      db.prepare("INSERT INTO settings (key, value) VALUES ('BACKUP_DIR', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(JSON.stringify(gone)),
    );
    const whole = (await suite.admin.get('/api/settings')).body;
    assert.equal(whole.BACKUP_DIR, gone);
    const r = await suite.admin.put('/api/settings', { ...whole, TIMEZONE: 'UTC' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.BACKUP_DIR, gone);
    assert.equal((await suite.admin.put('/api/settings', { AUTO_SYNC_ON_BOOT: true })).status, 200);
    // Empty means the default again: following BASE_DIR.
    assert.equal((await suite.admin.put('/api/settings', { BACKUP_DIR: '' })).body.BACKUP_DIR, join(whole.BASE_DIR, 'backups'));
  });

  test('the backup folders are saved (BACKUP_DIR checked like the other folders); following BASE_DIR still works', async () => {
    const offsite = await suite.admin.put('/api/settings', { BACKUP_OFFSITE_DIR: suite.outside });
    assert.equal(offsite.status, 200, JSON.stringify(offsite.body));
    assert.equal(offsite.body.BACKUP_OFFSITE_DIR, suite.outside);
    const own = await suite.admin.put('/api/settings', { BACKUP_DIR: join(suite.server.baseDir, 'my-backups') });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.equal(own.body.BACKUP_DIR, join(suite.server.baseDir, 'my-backups'));
    assert.equal((await suite.admin.put('/api/settings', { BACKUP_DIR: '', BACKUP_OFFSITE_DIR: '' })).status, 200);
    const moved = await suite.admin.put('/api/settings', { BASE_DIR: join(suite.server.baseDir, 'offsite-test'), BACKUP_DIR: '' });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.BACKUP_DIR, join(suite.server.baseDir, 'offsite-test', 'backups'));
    assert.equal((await suite.admin.put('/api/settings', { BASE_DIR: '' })).status, 200);
  });

  test('GET /api/paths/check answers exactly the documented shape', async () => {
    const q = (p: string, key = '') => suite.admin.get(`/api/paths/check?path=${encodeURIComponent(p)}${key ? `&key=${key}` : ''}`);
    const inside = await q(join(suite.server.baseDir, 'new-folder'));
    assert.deepEqual(inside.body, {
      path: join(suite.server.baseDir, 'new-folder'),
      exists: false,
      writable: false,
      inside_base: true,
      ok: true,
      fix: null,
      reason: null,
      base: suite.server.baseDir,
    });
    const here = await q(suite.server.baseDir);
    assert.deepEqual([here.body.exists, here.body.writable, here.body.ok], [true, true, true]);
    const out = await q(join(suite.outside, 'x'));
    assert.deepEqual([out.body.inside_base, out.body.ok, out.body.fix, out.body.reason], [false, false, `BASE_DIR=${suite.outside}`, 'outside_base']);
    assert.equal((await q(join(suite.outside, 'x'), 'BASE_DIR')).body.fix, `BASE_DIR=${join(suite.outside, 'x')}`);
    assert.equal((await q(suite.outside, 'BACKUP_OFFSITE_DIR')).body.ok, true);
    assert.equal((await q('/sys/kernel')).body.reason, 'system');
    isProblem(await suite.admin.get('/api/paths/check'), 400, 'validation');
    isProblem(await q('/x', 'NOT_A_KEY'), 400, 'validation');
  });

  test('an allowed host folder is checked one at a time by the rule its save applies, so the form says it while typing (issue #24 item 18)', async () => {
    const q = (p: string) => suite.admin.get(`/api/paths/check?path=${encodeURIComponent(p)}&key=ALLOWED_HOST_DIRS`);
    // Outside the mounted BASE_DIR is fine: apps bind it, Kade need not reach it.
    assert.deepEqual([(await q(join(suite.outside, 'media'))).body.ok, (await q(join(suite.outside, 'media'))).body.reason], [true, null]);
    for (const [path, reason] of [
      ['media', 'relative'],
      ['/', 'system'],
      ['/etc/ssl', 'system'],
      ['/var/run', 'system'],
      [join(suite.server.baseDir, 'stacks'), 'system'],
    ] as const) {
      const r = await q(path);
      assert.deepEqual([r.body.ok, r.body.reason, r.body.fix], [false, reason, null], path);
    }
    // The same folders refused by the save, so the check and the save agree.
    isProblem(await suite.admin.put('/api/settings', { ALLOWED_HOST_DIRS: ['/etc/ssl'] }), 400, 'validation');
  });

  test('after a restart Kade works in the saved folders', async () => {
    const base = join(suite.server.baseDir, 'after-restart');
    assert.equal((await suite.admin.put('/api/settings', { BASE_DIR: base, DATA_DIR: '' })).status, 200);
    // A stored folder that went missing (an unplugged disk) must not keep Kade from starting.
    const gone = join(suite.outside, 'unplugged', 'backups');
    suite.withDb((db) =>
      db.prepare("INSERT INTO settings (key, value) VALUES ('BACKUP_DIR', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(JSON.stringify(gone)),
    );
    const { baseDir } = suite.server;
    await suite.restart();
    const s = (await suite.admin.get('/api/settings')).body;
    assert.deepEqual(s.paths_in_use, {
      BASE_DIR: base,
      LIBRARY_DIR: join(base, 'stacks'),
      DATA_DIR: join(base, 'appdata'),
      BACKUP_DIR: join(baseDir, 'backups'),
    });
    assert.equal(s.BACKUP_DIR, gone);
    assert.equal(s.TIMEZONE, 'UTC');
    // The stacks list reads the folder in use.
    mkdirSync(join(base, 'stacks', 'moved-app'), { recursive: true });
    const stacks = await suite.admin.get('/api/stacks');
    assert.ok(
      stacks.body.some((st: { name: string }) => st.name === 'moved-app'),
      JSON.stringify(stacks.body),
    );
  });
});
