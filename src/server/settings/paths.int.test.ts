import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { ApiClient } from '../../../test/helpers/client.ts';
import { startTestServer, type TestServer } from '../../../test/helpers/server.ts';

let server: TestServer;
let admin: ApiClient;
let outside: string;
let root: string;

/** Kade's own database, for what HTTP cannot show: stored rows of old versions, the audit detail. */
const withDb = <T>(fn: (db: Database.Database) => T): T => {
  const db = new Database(join(server.stateDir, 'kade.db'));
  try {
    return fn(db);
  } finally {
    db.close();
  }
};

const isProblem = (r: { status: number; body: any }, status: number, code: string) => {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.code, code, JSON.stringify(r.body));
};

before(async () => {
  // Own folders, so the server can be restarted on the same state.
  root = mkdtempSync(join(tmpdir(), 'kade-settings-'));
  server = await startTestServer({ stateDir: join(root, 'state'), baseDir: join(root, 'base') });
  admin = new ApiClient(server.url);
  await admin.loginAs();
  outside = mkdtempSync(join(tmpdir(), 'kade-outside-'));
});
after(async () => {
  await server.close();
  rmSync(outside, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

describe('paths', () => {
  test('a folder outside the mounted BASE_DIR is refused with the .env line that fixes it', async () => {
    const want = join(outside, 'stacks');
    const r = await admin.put('/api/settings', { LIBRARY_DIR: want });
    isProblem(r, 400, 'path_unreachable');
    assert.equal(r.body.params.field, 'LIBRARY_DIR');
    assert.equal(r.body.params.reason, 'outside_base');
    assert.equal(r.body.params.fix, `BASE_DIR=${outside}`);
    assert.ok(r.body.detail.includes(`BASE_DIR=${outside}`), r.body.detail);
    assert.ok(r.body.detail.includes('.env'), r.body.detail);
    assert.deepEqual(r.body.fields, ['LIBRARY_DIR']);
    assert.equal((await admin.get('/api/settings')).body.LIBRARY_DIR, join(server.baseDir, 'stacks'));
  });

  test('system folders, relative paths and a file in the way are refused', async () => {
    const file = join(server.baseDir, 'a-file');
    writeFileSync(file, 'x');
    const cases: [Record<string, string>, string, string | undefined][] = [
      [{ BASE_DIR: '/etc' }, 'system', 'BASE_DIR=/opt/kade'],
      [{ BASE_DIR: '/' }, 'system', 'BASE_DIR=/opt/kade'],
      [{ DATA_DIR: '/proc/self' }, 'system', undefined],
      [{ BACKUP_DIR: '/var/run/docker.sock' }, 'system', undefined],
      [{ BASE_DIR: 'relative/kade' }, 'relative', 'BASE_DIR=/opt/kade'],
      [{ DATA_DIR: file }, 'not_a_directory', undefined],
      [{ DATA_DIR: join(file, 'below') }, 'not_creatable', undefined],
      [{ BACKUP_OFFSITE_DIR: join(outside, 'not-mounted') }, 'missing', undefined],
    ];
    for (const [body, reason, fix] of cases) {
      const r = await admin.put('/api/settings', body);
      isProblem(r, 400, 'path_unreachable');
      assert.equal(r.body.params.reason, reason, JSON.stringify(body));
      assert.equal(r.body.params.fix, fix, JSON.stringify(body));
      if (fix) assert.ok(r.body.detail.includes(fix));
    }
    // A BASE_DIR that is not mounted: the fix is to mount exactly that folder.
    const r = await admin.put('/api/settings', { BASE_DIR: join(outside, 'kade') });
    assert.equal(r.body.params.fix, `BASE_DIR=${join(outside, 'kade')}`);
  });

  test('a new BASE_DIR inside the mount is created; derived folders follow it; the change applies at the next start', async () => {
    const base = join(server.baseDir, 'moved');
    const r = await admin.put('/api/settings', { BASE_DIR: `${base}/` });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.BASE_DIR, base);
    assert.equal(r.body.LIBRARY_DIR, join(base, 'stacks'));
    assert.equal(r.body.DATA_DIR, join(base, 'appdata'));
    assert.equal(r.body.paths_in_use.LIBRARY_DIR, join(server.baseDir, 'stacks'));
    const check = await admin.get(`/api/paths/check?path=${encodeURIComponent(join(base, 'stacks'))}`);
    assert.equal(check.body.exists, true);

    // A derived folder set on its own stays when BASE_DIR moves on.
    const own = join(server.baseDir, 'my-data');
    assert.equal((await admin.put('/api/settings', { DATA_DIR: own })).body.DATA_DIR, own);
    const moved = await admin.put('/api/settings', { BASE_DIR: join(server.baseDir, 'again') });
    assert.equal(moved.body.DATA_DIR, own);
    assert.equal(moved.body.LIBRARY_DIR, join(server.baseDir, 'again', 'stacks'));
  });

  test('a folder left unchanged never blocks the save, even when it cannot be reached now', async () => {
    const gone = join(outside, 'unplugged-disk', 'backups');
    withDb((db) =>
      db.prepare("INSERT INTO settings (key, value) VALUES ('BACKUP_DIR', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(JSON.stringify(gone)),
    );
    const whole = (await admin.get('/api/settings')).body;
    assert.equal(whole.BACKUP_DIR, gone);
    const r = await admin.put('/api/settings', { ...whole, TIMEZONE: 'UTC' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.BACKUP_DIR, gone);
    assert.equal((await admin.put('/api/settings', { DISK_WARN_PCT: 80 })).status, 200);
    // Empty means the default again: following BASE_DIR.
    assert.equal((await admin.put('/api/settings', { BACKUP_DIR: '' })).body.BACKUP_DIR, join(whole.BASE_DIR, 'backups'));
  });

  test('an existing offsite folder outside BASE_DIR is accepted', async () => {
    const r = await admin.put('/api/settings', { BACKUP_OFFSITE_DIR: outside });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.BACKUP_OFFSITE_DIR, outside);
    assert.equal((await admin.put('/api/settings', { BACKUP_OFFSITE_DIR: '' })).body.BACKUP_OFFSITE_DIR, '');
  });

  test('GET /api/paths/check answers exactly the documented shape', async () => {
    const q = (p: string, key = '') => admin.get(`/api/paths/check?path=${encodeURIComponent(p)}${key ? `&key=${key}` : ''}`);
    const inside = await q(join(server.baseDir, 'new-folder'));
    assert.deepEqual(inside.body, {
      path: join(server.baseDir, 'new-folder'),
      exists: false,
      writable: false,
      inside_base: true,
      ok: true,
      fix: null,
      reason: null,
      base: server.baseDir,
    });
    const here = await q(server.baseDir);
    assert.deepEqual([here.body.exists, here.body.writable, here.body.ok], [true, true, true]);
    const out = await q(join(outside, 'x'));
    assert.deepEqual([out.body.inside_base, out.body.ok, out.body.fix, out.body.reason], [false, false, `BASE_DIR=${outside}`, 'outside_base']);
    assert.equal((await q(join(outside, 'x'), 'BASE_DIR')).body.fix, `BASE_DIR=${join(outside, 'x')}`);
    assert.equal((await q(outside, 'BACKUP_OFFSITE_DIR')).body.ok, true);
    assert.equal((await q('/sys/kernel')).body.reason, 'system');
    isProblem(await admin.get('/api/paths/check'), 400, 'validation');
    isProblem(await q('/x', 'NOT_A_KEY'), 400, 'validation');
  });

  test('after a restart Kade works in the saved folders', async () => {
    const base = join(server.baseDir, 'after-restart');
    assert.equal((await admin.put('/api/settings', { BASE_DIR: base, DATA_DIR: '' })).status, 200);
    // A stored folder that went missing (an unplugged disk) must not keep Kade from starting.
    const gone = join(outside, 'unplugged', 'backups');
    withDb((db) =>
      db.prepare("INSERT INTO settings (key, value) VALUES ('BACKUP_DIR', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(JSON.stringify(gone)),
    );
    const { stateDir, baseDir } = server;
    await server.close();
    server = await startTestServer({ stateDir, baseDir });
    admin = new ApiClient(server.url);
    await admin.loginAs();
    const s = (await admin.get('/api/settings')).body;
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
    const stacks = await admin.get('/api/stacks');
    assert.ok(
      stacks.body.some((st: { name: string }) => st.name === 'moved-app'),
      JSON.stringify(stacks.body),
    );
  });
});
