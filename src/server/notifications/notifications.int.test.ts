import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { ApiClient } from '../../../test/helpers/client.ts';
import { isProblem } from '../../../test/helpers/problem.ts';
import { deadPort, type Received, selfSignedCert, startHttpReceiver, startSmtp } from '../../../test/helpers/receivers.ts';
import { startTestServer, type TestServer } from '../../../test/helpers/server.ts';
import { notifyEvent } from './notifier.ts';

const TOKEN = 'ntfy-TOKEN-secret-1';
const SMTP_PASSWORD = 'smtp-PASSWORD-secret-1';
const SEND_LIMIT_MS = 1_500;

let root: string;
let cert: { key: string; cert: string };
let server: TestServer;
let admin: ApiClient;
let http: Awaited<ReturnType<typeof startHttpReceiver>>;
let plainSmtp: Awaited<ReturnType<typeof startSmtp>>;
let tlsSmtp: Awaited<ReturnType<typeof startSmtp>>;
let implicitSmtp: Awaited<ReturnType<typeof startSmtp>>;
let refused: number;

async function start(): Promise<void> {
  server = await startTestServer({
    stateDir: join(root, 'state'),
    baseDir: join(root, 'base'),
    // The test's mail server has a self-signed certificate: Kade trusts it as an extra CA here (in production, the system's CAs).
    kade: { notify: { sendTimeoutMs: SEND_LIMIT_MS, graceMs: 0, smtpTrust: { ca: cert.cert } } },
  });
  admin = new ApiClient(server.url);
  await admin.loginAs();
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'kade-notify-'));
  cert = selfSignedCert();
  http = await startHttpReceiver();
  plainSmtp = await startSmtp({ user: 'kade', password: SMTP_PASSWORD });
  tlsSmtp = await startSmtp({ user: 'kade', password: SMTP_PASSWORD, tls: cert });
  implicitSmtp = await startSmtp({ user: 'kade', password: SMTP_PASSWORD, tls: cert, implicitTls: true });
  refused = await deadPort();
  await start();
});
after(async () => {
  await server.close();
  await http.close();
  await plainSmtp.close();
  await tlsSmtp.close();
  await implicitSmtp.close();
  rmSync(root, { recursive: true, force: true });
});

const smtp = (port: number, security: 'none' | 'starttls' | 'tls', password: string | undefined = SMTP_PASSWORD) => ({
  host: '127.0.0.1',
  port,
  security,
  username: 'kade',
  ...(password !== undefined ? { password } : {}),
  from: 'kade@example.test',
  to: 'admin@example.test',
});
const hook = (id: string, format?: string) => ({ id, kind: 'webhook', enabled: true, url: `${http.url}/hook/${id}`, ...(format ? { format } : {}) });
const got = (id: string): Received[] => http.got.filter((r) => r.path === `/push/${id}` || r.path === `/hook/${id}` || r.path === `/hang/${id}`);
const rawText = async (path: string) => (await fetch(`${server.url}${path}`, { headers: { cookie: admin.cookie } })).text();
const emit = async (e: Parameters<typeof notifyEvent>[0]) => {
  server.kade.events.emit(notifyEvent(e));
  await server.kade.notifications.idle();
};
/** The backup before an update of app blog failed (job-1) with `error`. */
const backupFailed = (error: string) =>
  server.kade.events.emit({
    type: 'backup.failed',
    actor: null,
    source: 'backups',
    target: 'blog',
    status: 'failed',
    detail: { reason: 'update', error, job: 'job-1' },
  });
const withDb = <T>(fn: (db: Database.Database) => T): T => {
  const db = new Database(join(server.stateDir, 'kade.db'), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
};

describe('PUT /api/notifications validates', () => {
  const known = { id: 'known', kind: 'webhook', enabled: true, url: 'http://127.0.0.1:9/hook/known' };
  const cases: [string, unknown, string][] = [
    ['an ftp address', { channels: [{ id: 'a', kind: 'push', enabled: true, url: 'ftp://127.0.0.1/x' }] }, 'channels[0].url'],
    ['a push channel without url', { channels: [{ id: 'a', kind: 'push', enabled: true }] }, 'channels[0].url'],
    ['a javascript: address', { channels: [{ id: 'a', kind: 'webhook', enabled: true, url: 'javascript:alert(1)' }] }, 'channels[0].url'],
    [
      'an e-mail channel without SMTP host',
      { channels: [{ id: 'm', kind: 'email', enabled: true, smtp: { ...smtp(25, 'none'), host: '' } }] },
      'channels[0].smtp.host',
    ],
    ['an e-mail channel without smtp', { channels: [{ id: 'm', kind: 'email', enabled: true }] }, 'channels[0].smtp'],
    ['a bad channel id', { channels: [{ id: 'A/../b', kind: 'push', enabled: true, url: 'http://127.0.0.1/' }] }, 'channels[0].id'],
    ['an unknown kind of channel', { channels: [{ id: 'a', kind: 'pager', enabled: true }] }, 'channels[0].kind'],
    ['a rule naming an unknown channel', { channels: [known], rules: { disk_low: ['known', 'ghost'] } }, 'rules.disk_low'],
    ['a rule of an unknown kind', { channels: [known], rules: { coffee_empty: ['known'] } }, 'rules'],
  ];
  for (const [what, body, field] of cases) {
    test(`${what}: 400 naming ${field}`, async () => {
      const r = await admin.put('/api/notifications', body);
      isProblem(r, 400, 'validation');
      assert.ok(r.body.fields.includes(field), JSON.stringify(r.body));
      assert.match(r.body.detail, new RegExp(field.replace(/[[\].]/g, '\\$&')));
    });
  }
  test('the unknown channel is named in the refusal', async () => {
    const r = await admin.put('/api/notifications', { channels: [known], rules: { disk_low: ['ghost'] } });
    assert.match(r.body.detail, /ghost/);
  });
  test('only admins', async () => {
    await admin.post('/api/users', { name: 'op', password: 'correct-horse-battery', role: 'operator' });
    const op = new ApiClient(server.url);
    await op.loginAs('op', 'correct-horse-battery');
    isProblem(await op.get('/api/notifications'), 403, 'forbidden');
    isProblem(await op.put('/api/notifications', { channels: [] }), 403, 'forbidden');
    isProblem(await op.post('/api/notifications/test', { channels: [] }), 403, 'forbidden');
  });
});

describe('channels and the test button', () => {
  test('every channel kind answers through real receivers; secrets never come back', async () => {
    const body = {
      channels: [
        { id: 'push', kind: 'push', enabled: true, name: 'Phone', url: `${http.url}/push/push`, token: TOKEN },
        hook('generic'),
        hook('slack', 'slack'),
        hook('discord', 'discord'),
        hook('matrix', 'matrix'),
        { id: 'mail', kind: 'email', enabled: true, smtp: smtp(plainSmtp.port, 'none') },
        { id: 'mail-tls', kind: 'email', enabled: true, smtp: smtp(tlsSmtp.port, 'starttls') },
        { id: 'mail-implicit', kind: 'email', enabled: true, smtp: smtp(implicitSmtp.port, 'tls') },
        // STARTTLS asked of a server that offers none: refused, never sent in clear.
        { id: 'no-tls', kind: 'email', enabled: true, smtp: smtp(plainSmtp.port, 'starttls') },
        { id: 'bad-login', kind: 'email', enabled: true, smtp: smtp(tlsSmtp.port, 'starttls', 'wrong-password') },
        { id: 'dead', kind: 'webhook', enabled: true, url: `http://127.0.0.1:${refused}/x` },
        { id: 'dead-mail', kind: 'email', enabled: true, smtp: smtp(refused, 'none') },
        { id: 'hang', kind: 'push', enabled: true, url: `${http.url}/hang/hang` },
        { id: 'error', kind: 'webhook', enabled: true, url: `${http.url}/fail/error` },
        { id: 'off', kind: 'webhook', enabled: false, url: `${http.url}/hook/off` },
      ],
      rules: {},
    };
    const r = await admin.post('/api/notifications/test', body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const by = Object.fromEntries(r.body.results.map((x: { channel: string }) => [x.channel, x]));
    assert.equal(r.body.results.length, 14, 'every enabled channel, not the disabled one');
    for (const id of ['push', 'generic', 'slack', 'discord', 'matrix'])
      assert.deepEqual(by[id], { channel: id, kind: id === 'push' ? 'push' : 'webhook', ok: true, status: 200 });
    assert.deepEqual(by.mail, { channel: 'mail', kind: 'email', ok: true, status: 250 });
    assert.deepEqual(by['mail-tls'], { channel: 'mail-tls', kind: 'email', ok: true, status: 250 });
    assert.deepEqual(by['mail-implicit'], { channel: 'mail-implicit', kind: 'email', ok: true, status: 250 });
    assert.equal(by['no-tls'].ok, false);
    assert.equal(plainSmtp.mails.length, 1, 'only the channel without TLS reached the plain server');
    assert.equal(by['bad-login'].ok, false);
    assert.equal(by['bad-login'].status, 535);
    assert.deepEqual(by.dead, { channel: 'dead', kind: 'webhook', ok: false, error: 'connection refused' });
    assert.equal(by['dead-mail'].ok, false);
    assert.equal(by['dead-mail'].error, 'connection refused');
    assert.deepEqual(by.hang, { channel: 'hang', kind: 'push', ok: false, error: `no answer within ${SEND_LIMIT_MS / 1000} s` });
    assert.deepEqual(by.error, { channel: 'error', kind: 'webhook', ok: false, status: 500, error: 'HTTP 500' });

    // What the receivers got.
    const [push] = got('push');
    assert.ok(push);
    assert.equal(push.headers.title, 'Kade: Test message');
    assert.equal(push.headers.priority, '3');
    assert.equal(push.headers.tags, 'kade,test');
    assert.equal(push.headers.authorization, `Bearer ${TOKEN}`);
    assert.match(push.body, /test message from Kade/);
    const generic = JSON.parse(got('generic')[0]?.body ?? '{}');
    assert.deepEqual(Object.keys(generic).sort(), ['at', 'kind', 'message', 'subject', 'title']);
    assert.equal(generic.kind, 'test');
    assert.match(JSON.parse(got('slack')[0]?.body ?? '{}').text, /Test message/);
    assert.match(JSON.parse(got('discord')[0]?.body ?? '{}').content, /Test message/);
    const matrix = JSON.parse(got('matrix')[0]?.body ?? '{}');
    assert.equal(matrix.msgtype, 'm.text');
    assert.match(matrix.body, /Test message/);
    assert.equal(got('off').length, 0);
    const [mail] = plainSmtp.mails;
    assert.ok(mail);
    assert.equal(mail.user, 'kade', 'signed in with AUTH');
    assert.deepEqual(mail.to, ['admin@example.test']);
    assert.match(mail.raw, /Content-Type: text\/plain/i);
    assert.match(mail.raw, /Content-Type: text\/html/i);
    assert.match(mail.raw, /Subject: Kade: Test message/);
    const [tlsMail] = tlsSmtp.mails;
    assert.ok(tlsMail);
    assert.equal(tlsMail.secure, true, 'upgraded with STARTTLS before AUTH');
    assert.equal(tlsMail.user, 'kade');
    assert.equal(implicitSmtp.mails[0]?.secure, true, 'TLS from the first byte');

    // Secrets: never in the test answer, GET or PUT, nor in the audit log; the flags say they are set.
    const list = await admin.get('/api/notifications');
    const text = `${JSON.stringify(r.body)}${await rawText('/api/notifications')}`;
    for (const secret of [TOKEN, SMTP_PASSWORD]) assert.ok(!text.includes(secret), 'an answer holds a secret');
    const push0 = list.body.channels.find((c: { id: string }) => c.id === 'push');
    assert.equal(push0.has_token, true);
    assert.equal(push0.token, undefined);
    const mail0 = list.body.channels.find((c: { id: string }) => c.id === 'mail');
    assert.equal(mail0.smtp.has_password, true);
    assert.equal(mail0.smtp.password, undefined);
    assert.deepEqual(list.body.kinds, [
      'backup_failed',
      'archive_unreadable',
      'job_stuck',
      'update_available',
      'disk_low',
      'container_stopped',
      'security_refusal',
    ]);
    assert.equal(list.body.stuck_after_minutes, 30);
    // The delivery history, newest first, with what the channel answered.
    assert.deepEqual(
      list.body.channels.find((c: { id: string }) => c.id === 'dead').history.map((h: Record<string, unknown>) => ({ ...h, at: 'x' })),
      [{ at: 'x', kind: 'test', ok: false, error: 'connection refused' }],
    );
    const audit = withDb((db) => db.prepare("SELECT action, target, detail FROM audit WHERE target = 'notifications'").all() as { detail: string }[]);
    assert.ok(audit.length >= 1);
    for (const row of audit) for (const secret of [TOKEN, SMTP_PASSWORD]) assert.ok(!row.detail.includes(secret));
    // Sealed at rest.
    const stored = withDb((db) => db.prepare('SELECT token, password FROM notify_channels').all() as { token: string | null; password: string | null }[]);
    for (const s of stored) for (const v of [s.token, s.password]) if (v !== null) assert.ok(v.startsWith('enc:v1:'));
  });

  test('an empty or absent secret keeps the stored one of the same channel id; a new one replaces it', async () => {
    const before = http.got.length;
    const keepEmpty = await admin.put('/api/notifications', {
      channels: [
        { id: 'push', kind: 'push', enabled: true, url: `${http.url}/push/push`, token: '' },
        { id: 'mail', kind: 'email', enabled: true, smtp: smtp(plainSmtp.port, 'none', '') },
      ],
    });
    assert.equal(keepEmpty.status, 200, JSON.stringify(keepEmpty.body));
    for (const secret of [TOKEN, SMTP_PASSWORD]) assert.ok(!JSON.stringify(keepEmpty.body).includes(secret));
    // The GET answer sent back as it is (flags and history included) keeps them too.
    const back = await admin.post('/api/notifications/test', { channels: keepEmpty.body.channels, rules: keepEmpty.body.rules });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.deepEqual(
      back.body.results.map((x: { ok: boolean }) => x.ok),
      [true, true],
    );
    assert.equal(http.got.slice(before).find((g) => g.path === '/push/push')?.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(plainSmtp.mails.at(-1)?.user, 'kade', 'the kept password still signs in');
    await admin.post('/api/notifications/test', {
      channels: [{ id: 'push', kind: 'push', enabled: true, url: `${http.url}/push/push`, token: 'second-TOKEN' }],
    });
    assert.equal(got('push').at(-1)?.headers.authorization, 'Bearer second-TOKEN');
  });

  test('NOTIFY_TOKEN of the settings serves a push channel without a token of its own', async () => {
    await admin.put('/api/notifications', { channels: [{ id: 'bare', kind: 'push', enabled: true, url: `${http.url}/push/bare` }] });
    assert.equal((await admin.put('/api/settings', { NOTIFY_TOKEN: 'settings-TOKEN' })).status, 200);
    await admin.post('/api/notifications/test', { channels: [{ id: 'bare', kind: 'push', enabled: true, url: `${http.url}/push/bare` }] });
    assert.equal(got('bare').at(-1)?.headers.authorization, 'Bearer settings-TOKEN');
    assert.equal((await admin.put('/api/settings', { NOTIFY_TOKEN: { set: false } })).status, 200);
  });
});

describe('the rules', () => {
  before(async () => {
    const r = await admin.put('/api/notifications', {
      channels: [
        { id: 'all', kind: 'push', enabled: true, url: `${http.url}/push/all` },
        hook('backups-only'),
        { id: 'hang', kind: 'push', enabled: true, url: `${http.url}/hang/hang2` },
      ],
      rules: { backup_failed: ['backups-only'] },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });
  const titles = (id: string) => got(id).map((g) => (g.headers.title as string | undefined) ?? JSON.parse(g.body).title);

  test('a channel named in no rule gets every kind; one named in rules only those kinds', async () => {
    const n = got('all').length;
    backupFailed('disk gone');
    await emit({ kind: 'update_available', subject: 'blog', round: 'update-check:2026-11-26', message: 'nginx:1.27' });
    await server.kade.notifications.idle();
    assert.deepEqual(titles('all').slice(n), ['Kade: Backup of blog failed', 'Kade: Update available for blog']);
    assert.deepEqual(titles('backups-only'), ['Kade: Backup of blog failed']);
    assert.match(JSON.parse(got('backups-only')[0]?.body ?? '{}').message, /update backup of blog failed: disk gone/);
  });

  test('once per round: the same round again sends nothing, the next round does', async () => {
    const n = got('all').length;
    await emit({ kind: 'update_available', subject: 'blog', round: 'update-check:2026-11-26', message: 'again' });
    assert.equal(got('all').length, n);
    await emit({ kind: 'update_available', subject: 'blog', round: 'update-check:2026-11-27', message: 'next day' });
    assert.equal(got('all').length, n + 1);
    // A failed verification: once per verify job.
    const verified = {
      type: 'backup.verified',
      actor: null,
      source: 'backups',
      target: 'blog',
      status: 'failed' as const,
      detail: { id: 'blog-20261125-030000', job: 'v-1' },
    };
    server.kade.events.emit(verified);
    server.kade.events.emit(verified);
    await server.kade.notifications.idle();
    assert.deepEqual(titles('all').slice(n + 1), ['Kade: Backup blog-20261125-030000 is unreadable']);
  });

  test('transition kinds: only when entering the state, again only after leaving it', async () => {
    const n = got('all').length;
    for (const state of ['on', 'on', 'on', 'off', 'off', 'on'] as const)
      await emit({ kind: 'disk_low', subject: '/srv/backups', state, message: `disk ${state}` });
    assert.deepEqual(
      got('all')
        .slice(n)
        .map((g) => g.body),
      ['disk on', 'disk on'],
    );
  });

  test('a hanging channel never holds up the job that caused the message: a verify of a broken archive', async () => {
    // A backup whose archive is not an archive: the verify job fails on its own terms and asks for archive_unreadable.
    const id = 'blog-20261126-030000';
    const dir = join(server.baseDir, 'backups');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${id}.tar.gz`), 'not a gzip stream at all');
    writeFileSync(join(dir, `${id}.tar.gz.json`), JSON.stringify({ stack: 'blog', created_at: '2026-11-26T03:00:00.000Z', reason: 'manual' }));
    const unreadable = async () =>
      (await admin.get('/api/notifications')).body.channels
        .find((c: { id: string }) => c.id === 'hang')
        .history.filter((h: { kind: string }) => h.kind === 'archive_unreadable').length;
    const before = await unreadable();
    const started = await admin.post(`/api/backups/${id}/verify`);
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const job = await admin.waitJob(started.body.job.id);
    assert.equal(job.state, 'failed');
    assert.match(job.error ?? '', /failed verification/);
    // The job ended while the send to the hanging receiver was still waiting for its answer.
    assert.equal(await unreadable(), before);
    await server.kade.notifications.idle();
    assert.equal(titles('all').at(-1), `Kade: Backup ${id} is unreadable`);
    const hang = (await admin.get('/api/notifications')).body.channels.find((c: { id: string }) => c.id === 'hang');
    assert.deepEqual({ ...hang.history[0], at: 'x' }, { at: 'x', kind: 'archive_unreadable', ok: false, error: `no answer within ${SEND_LIMIT_MS / 1000} s` });
    // Kade goes on answering, and a container stop asked for meanwhile still goes out.
    await emit({ kind: 'container_stopped', subject: 'blog-web-1', state: 'on', message: 'The container blog-web-1 of the app blog stopped' });
    assert.equal(titles('all').at(-1), 'Kade: Container stopped: blog-web-1');
  });

  test('after a restart of Kade on the same state: no repeat of a round or a state, nothing lost', async () => {
    await server.close();
    await start();
    const n = got('all').length;
    await emit({ kind: 'disk_low', subject: '/srv/backups', state: 'on', message: 'still low' });
    await emit({ kind: 'container_stopped', subject: 'blog-web-1', state: 'on', message: 'still stopped' });
    await emit({ kind: 'update_available', subject: 'blog', round: 'update-check:2026-11-27', message: 'same day' });
    backupFailed('x');
    await server.kade.notifications.idle();
    assert.equal(got('all').length, n, 'nothing repeated');
    await emit({ kind: 'container_stopped', subject: 'blog-web-1', state: 'off', message: 'runs again' });
    await emit({ kind: 'container_stopped', subject: 'blog-web-1', state: 'on', message: 'stopped again' });
    assert.deepEqual(
      got('all')
        .slice(n)
        .map((g) => g.body),
      ['stopped again'],
    );
    // The channels and their history survived too.
    const list = await admin.get('/api/notifications');
    assert.deepEqual(
      list.body.channels.map((c: { id: string }) => c.id),
      ['all', 'backups-only', 'hang'],
    );
    assert.ok(list.body.channels[0].history.length >= 5);
  });
});
