import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ApiClient } from '../../../test/helpers/client.ts';
import { isProblem } from '../../../test/helpers/problem.ts';
import { useSettingsServer } from '../../../test/helpers/settings-server.ts';
import { openSecretBox } from '../db/secret-box.ts';

const PASSWORD = 'correct-horse-battery';
const suite = useSettingsServer();

const userClient = async (name: string, role: string): Promise<ApiClient> => {
  const created = await suite.admin.post('/api/users', { name, password: PASSWORD, role });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const c = new ApiClient(suite.server.url);
  await c.loginAs(name, PASSWORD);
  return c;
};

describe('GET /api/settings', () => {
  test('answers every key with its default; secrets only as {set}', async () => {
    const r = await suite.admin.get('/api/settings');
    assert.equal(r.status, 200);
    const s = r.body;
    assert.equal(s.BASE_DIR, suite.server.baseDir);
    assert.equal(s.LIBRARY_DIR, join(suite.server.baseDir, 'stacks'));
    assert.equal(s.DATA_DIR, join(suite.server.baseDir, 'appdata'));
    assert.equal(s.BACKUP_DIR, join(suite.server.baseDir, 'backups'));
    assert.deepEqual(s.paths_in_use, { BASE_DIR: s.BASE_DIR, LIBRARY_DIR: s.LIBRARY_DIR, DATA_DIR: s.DATA_DIR, BACKUP_DIR: s.BACKUP_DIR });
    assert.equal(typeof s.TIMEZONE, 'string');
    assert.equal(s.SHARED_NETWORK, 'svc_shared');
    assert.deepEqual(s.APP_NETWORKS, []);
    assert.equal(s.BACKUP_APPDATA, true);
    assert.equal(s.BACKUP_COMPRESSION, 'gzip');
    assert.equal(s.AUTO_SYNC_ON_BOOT, false);
    assert.equal(s.WIZARD_DONE, false);
    assert.equal(s.UPDATE_CHANNEL, 'stable');
    assert.equal(s.BACKUP_OFFSITE_DIR, '');
    assert.equal(s.UPDATE_CHECK_ENABLED, true);
    assert.equal(s.ALLOW_PRIVILEGED_APPS, 'admins');
    for (const k of ['NOTIFY_TOKEN', 'NOTIFY_EMAIL_PASSWORD', 'REGISTRY_TOKEN']) assert.deepEqual(s[k], { set: false });
    assert.deepEqual(s.AUTH, { proxy_role: 'viewer', proxy_header: '', trusted_proxies: [] });
    for (const k of [
      'BACKUP_SCHEDULE_MODE',
      'BACKUP_SCHEDULE_DAY',
      'BACKUP_SCHEDULE_HOUR',
      'BACKUP_RETENTION_COUNT',
      'BACKUP_RETENTION_DAYS',
      'DISK_MIN_FREE_GB',
      'DISK_WARN_PCT',
    ]) {
      assert.ok(k in s, k);
    }
    assert.ok(!('UPDATE_INCLUDE_PRERELEASE' in s));
  });

  test('is for admins only: viewers and operators get 403 on GET and PUT, strangers 401', async () => {
    for (const c of [await userClient('set-viewer', 'viewer'), await userClient('set-operator', 'operator')]) {
      isProblem(await c.get('/api/settings'), 403, 'forbidden');
      isProblem(await c.put('/api/settings', { TIMEZONE: 'UTC' }), 403, 'forbidden');
      for (const step of ['reset', 'paths', 'git', 'sync', 'complete']) isProblem(await c.post(`/api/wizard/${step}`, {}), 403, 'forbidden');
      // Anyone logged in may check a folder and see whether the wizard is done.
      assert.equal((await c.get(`/api/paths/check?path=${encodeURIComponent(suite.server.baseDir)}`)).status, 200);
      assert.equal((await c.get('/api/wizard')).status, 200);
    }
    isProblem(await new ApiClient(suite.server.url).get('/api/settings'), 401, 'unauthenticated');
  });
});

describe('PUT /api/settings', () => {
  test('write-only secrets: never in an answer; empty, null or absent keeps; a value replaces; {set:false} removes', async () => {
    const secrets = { NOTIFY_TOKEN: 'ntfy-TOKEN-one', NOTIFY_EMAIL_PASSWORD: 'smtp-PASSWORD-one', REGISTRY_TOKEN: 'ghp-REGISTRY-one' };
    // The notification secrets are the channels' token and SMTP password where a channel has none of its own.
    const put = await suite.admin.put('/api/settings', { ...secrets, REGISTRY_URL: 'ghcr.io', REGISTRY_USER: 'someone' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const rawStored = () =>
      suite.withDb((db) =>
        Object.fromEntries(
          db
            .prepare('SELECT key, value FROM settings')
            .all()
            .map((r: any) => [r.key, JSON.parse(r.value)]),
        ),
      );
    // Secrets are sealed with the key file beside the database; opened here as Kade opens them.
    const box = openSecretBox(suite.server.stateDir);
    const stored = () => Object.fromEntries(Object.entries(rawStored()).map(([k, v]) => [k, typeof v === 'string' ? box.open(v) : v]));
    const raw = async () => {
      const res = await fetch(`${suite.server.url}/api/settings`, { headers: { cookie: suite.admin.cookie } });
      return res.text();
    };
    for (const v of Object.values(secrets)) {
      assert.ok(!JSON.stringify(put.body).includes(v), 'PUT answer holds a secret');
      assert.ok(!(await raw()).includes(v), 'GET answer holds a secret');
    }
    const s = (await suite.admin.get('/api/settings')).body;
    assert.deepEqual([s.NOTIFY_TOKEN, s.NOTIFY_EMAIL_PASSWORD, s.REGISTRY_TOKEN], [{ set: true }, { set: true }, { set: true }]);
    assert.equal(s.REGISTRY_USER, 'someone');

    // The interface sends back what it got; none of these may wipe or change a secret.
    for (const keep of ['', null, { set: true }, '   '])
      assert.equal((await suite.admin.put('/api/settings', { NOTIFY_TOKEN: keep, REGISTRY_TOKEN: keep })).status, 200);
    assert.equal((await suite.admin.put('/api/settings', s)).status, 200);
    assert.equal(stored().NOTIFY_TOKEN, 'ntfy-TOKEN-one');
    assert.equal(stored().REGISTRY_TOKEN, 'ghp-REGISTRY-one');

    await suite.admin.put('/api/settings', { REGISTRY_TOKEN: 'ghp-REGISTRY-two' });
    assert.equal(stored().REGISTRY_TOKEN, 'ghp-REGISTRY-two');
    assert.ok(String(rawStored().REGISTRY_TOKEN).startsWith('enc:v1:'), 'the database holds the token sealed, not in plain text');
    const cleared = await suite.admin.put('/api/settings', { NOTIFY_EMAIL_PASSWORD: { set: false } });
    assert.deepEqual(cleared.body.NOTIFY_EMAIL_PASSWORD, { set: false });
    assert.ok(!('NOTIFY_EMAIL_PASSWORD' in stored()));

    // The audit log names the changed keys and never a secret's value.
    const audit = suite.withDb((db) => db.prepare("SELECT detail FROM audit WHERE detail LIKE '%REGISTRY_TOKEN%'").all() as { detail: string }[]);
    assert.ok(audit.length >= 2);
    for (const row of audit) for (const v of [...Object.values(secrets), 'ghp-REGISTRY-two']) assert.ok(!row.detail.includes(v));
  });

  test('validates every value with the shared schema', async () => {
    const bad: Record<string, unknown>[] = [
      { DISK_WARN_PCT: 0 },
      { DISK_WARN_PCT: 101 },
      { DISK_MIN_FREE_GB: -1 },
      { BACKUP_SCHEDULE_DAY: 7 },
      { BACKUP_SCHEDULE_DAY: 'funday' },
      { BACKUP_SCHEDULE_HOUR: 24 },
      { BACKUP_SCHEDULE_MODE: 'hourly' },
      { TIMEZONE: 'Mars/Olympus_Mons' },
      { TIMEZONE: '../../etc/passwd' },
      { SHARED_NETWORK: 'bad name; rm -rf /' },
      { APP_NETWORKS: ['one', 'one'] },
      { APP_NETWORKS: ['-dash'] },
      { UPDATE_CHANNEL: 'nightly' },
      { BACKUP_APPDATA: 'yes' },
      { BACKUP_COMPRESSION: 'xz' },
      { BACKUP_COMPRESSION: 'ZSTD' },
      { BACKUP_COMPRESSION: true },
      { REGISTRY_URL: 'ghcr.io/ x' },
    ];
    for (const body of bad) {
      const r = await suite.admin.put('/api/settings', body);
      isProblem(r, 400, 'validation');
      assert.deepEqual(
        r.body.fields.map((f: string) => f.split('.')[0]),
        Object.keys(body),
        JSON.stringify(body),
      );
    }
    // A misspelt key is refused rather than silently ignored.
    const typo = await suite.admin.put('/api/settings', { DISK_WARN_PERCENT: 80 });
    isProblem(typo, 400, 'validation');
    assert.match(typo.body.detail, /DISK_WARN_PERCENT/);
  });

  test('normalises what it accepts: time zone spelling, and answers the result', async () => {
    const r = await suite.admin.put('/api/settings', { TIMEZONE: 'europe/amsterdam', AUTO_SYNC_ON_BOOT: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.TIMEZONE, 'Europe/Amsterdam');
    assert.equal(r.body.AUTO_SYNC_ON_BOOT, true);
  });

  test('the update channel is saved now that Kade updates itself; an unknown channel is refused', async () => {
    const r = await suite.admin.put('/api/settings', { UPDATE_CHANNEL: 'beta' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await suite.admin.get('/api/settings')).body.UPDATE_CHANNEL, 'beta');
    isProblem(await suite.admin.put('/api/settings', { UPDATE_CHANNEL: 'nightly' }), 400, 'validation');
    assert.equal((await suite.admin.put('/api/settings', { UPDATE_CHANNEL: 'stable' })).body.UPDATE_CHANNEL, 'stable');
  });

  test('the backup settings are saved now that backups exist; the offsite folder is checked like a folder', async () => {
    const r = await suite.admin.put('/api/settings', {
      BACKUP_SCHEDULE_DAY: 'Friday',
      BACKUP_SCHEDULE_HOUR: 4,
      BACKUP_SCHEDULE_MODE: 'daily',
      BACKUP_RETENTION_COUNT: 3,
      BACKUP_RETENTION_DAYS: 30,
      BACKUP_APPDATA: false,
      BACKUP_COMPRESSION: 'zstd',
      DISK_WARN_PCT: 80,
      DISK_MIN_FREE_GB: 1,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.BACKUP_SCHEDULE_DAY, 5);
    assert.equal(r.body.BACKUP_APPDATA, false);
    assert.equal(r.body.BACKUP_COMPRESSION, 'zstd');
    assert.equal((await suite.admin.get('/api/settings')).body.BACKUP_COMPRESSION, 'zstd');
    const schedule = await suite.admin.get('/api/backups/schedule');
    assert.deepEqual({ ...schedule.body, next_run: null }, { mode: 'daily', day: 5, hour: 4, retention_count: 3, retention_days: 30, next_run: null });
    assert.ok(schedule.body.next_run, 'a daily schedule has a next run');
    isProblem(await suite.admin.put('/api/settings', { BACKUP_OFFSITE_DIR: 'relative/dir' }), 400, 'path_unreachable');
  });

  test('the shared network names are saved and take effect for the network routes', async () => {
    const r = await suite.admin.put('/api/settings', { SHARED_NETWORK: 'other_net', APP_NETWORKS: ['frontend'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.SHARED_NETWORK, 'other_net');
    assert.deepEqual(r.body.APP_NETWORKS, ['frontend']);
    const back = await suite.admin.put('/api/settings', { SHARED_NETWORK: 'svc_shared', APP_NETWORKS: [] });
    assert.equal(back.status, 200, JSON.stringify(back.body));
  });

  test('AUTH is read-only: a change is refused naming the field; sending it back unchanged is fine', async () => {
    const r = await suite.admin.put('/api/settings', { AUTH: { proxy_role: 'admin', proxy_header: 'Remote-User', trusted_proxies: ['10.0.0.1'] } });
    isProblem(r, 400, 'read_only_setting');
    assert.equal(r.body.params.field, 'AUTH');
    assert.deepEqual(r.body.fields, ['AUTH']);
    assert.match(r.body.detail, /AUTH/);
    assert.equal(suite.withDb((db) => db.prepare("SELECT count(*) AS n FROM settings WHERE key = 'AUTH'").get() as { n: number }).n, 0);
    const whole = (await suite.admin.get('/api/settings')).body;
    assert.equal((await suite.admin.put('/api/settings', whole)).status, 200);
  });

  test('legacy UPDATE_INCLUDE_PRERELEASE becomes the beta channel, in a PUT and in stored data', async () => {
    let r = await suite.admin.put('/api/settings', { UPDATE_INCLUDE_PRERELEASE: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.UPDATE_CHANNEL, 'beta');
    r = await suite.admin.put('/api/settings', { UPDATE_INCLUDE_PRERELEASE: false });
    assert.equal(r.body.UPDATE_CHANNEL, 'stable');
    assert.ok(!('UPDATE_INCLUDE_PRERELEASE' in r.body));
    // An explicit channel in the same request wins over the legacy flag.
    assert.equal((await suite.admin.put('/api/settings', { UPDATE_INCLUDE_PRERELEASE: true, UPDATE_CHANNEL: 'stable' })).body.UPDATE_CHANNEL, 'stable');

    // A database of an older version: only the legacy row.
    suite.withDb((db) => {
      db.prepare("DELETE FROM settings WHERE key = 'UPDATE_CHANNEL'").run();
      db.prepare("INSERT INTO settings (key, value) VALUES ('UPDATE_INCLUDE_PRERELEASE', 'true')").run();
    });
    r = await suite.admin.get('/api/settings');
    assert.equal(r.body.UPDATE_CHANNEL, 'beta');
    const rows = suite.withDb((db) => db.prepare("SELECT key, value FROM settings WHERE key LIKE 'UPDATE_%'").all());
    assert.deepEqual(rows, [{ key: 'UPDATE_CHANNEL', value: '"beta"' }]);
  });
});
