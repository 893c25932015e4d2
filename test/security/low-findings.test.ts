import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../helpers/client.ts';
import { startHttpReceiver } from '../helpers/receivers.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// The low findings of issue #23, each from the attacker's side against a real Kade: a stored token that
// would follow an edited address to another server, a test button that reads out what a loopback port says,
// reserved address blocks as container networks, and a path check that tells non-admins which files exist
// in other apps' folders.
const PASSWORD = 'correct-horse-battery';
const TOKEN = 'low-TOKEN-secret-9';
let server: TestServer;
let admin: ApiClient;
let viewer: ApiClient;
let operator: ApiClient;
const closers: (() => Promise<void>)[] = [];

/** Listens on a free loopback port; at the end every connection is cut and the server closed. */
async function listen(s: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  const open = new Set<Socket>();
  s.on('connection', (c: Socket) => {
    open.add(c);
    c.on('close', () => open.delete(c));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const c of open) c.destroy();
        s.close(() => r());
      }),
  );
  return (s.address() as AddressInfo).port;
}

/** A git server that wants a login: answers 401 to everything and keeps each request's Authorization header. */
async function authRecorder(): Promise<{ url: string; seen: (string | null)[] }> {
  const seen: (string | null)[] = [];
  const port = await listen(
    createHttpServer((req, res) => {
      seen.push(req.headers.authorization ?? null);
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
    }),
  );
  return { url: `http://127.0.0.1:${port}`, seen };
}

before(async () => {
  server = await startTestServer();
  admin = new ApiClient(server.url);
  await admin.loginAs('admin', PASSWORD);
  for (const [name, role] of [
    ['low-viewer', 'viewer'],
    ['low-operator', 'operator'],
  ] as const) {
    assert.equal((await admin.post('/api/users', { name, password: PASSWORD, role })).status, 201);
  }
  viewer = new ApiClient(server.url);
  await viewer.loginAs('low-viewer', PASSWORD);
  operator = new ApiClient(server.url);
  await operator.loginAs('low-operator', PASSWORD);
});
after(async () => {
  await server.close();
  for (const close of closers) await close();
});

describe('a stored token never follows an edited address to another server (item 9)', () => {
  test('template repo: an edit of only the URL to another port sends no token there and drops it', async () => {
    const first = await authRecorder();
    const second = await authRecorder();
    const added = await admin.post('/api/repos', { id: 'moved', name: 'Moved', url: `${first.url}/x.git`, token: TOKEN });
    assert.equal(added.status, 202, JSON.stringify(added.body));
    await admin.waitJob(added.body.job.id);
    const basic = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
    assert.ok(first.seen.includes(basic), `the repo's own server gets the token (the receiver works): ${JSON.stringify(first.seen)}`);

    // The interface sends the repo back without a token (it never has it) and with the new address.
    const edited = await admin.put('/api/repos/moved', { name: 'Moved', url: `${second.url}/x.git` });
    assert.equal(edited.status, 202, JSON.stringify(edited.body));
    await admin.waitJob(edited.body.job.id);
    assert.ok(second.seen.length > 0, 'git asked the new server');
    assert.deepEqual(
      second.seen.filter((h) => h !== null),
      [],
      'no Authorization header reached the new server',
    );
    assert.equal((await admin.get('/api/repos/moved')).body.has_token, false);

    // Same scheme, host and port: an edit of the path keeps a token, and a token sent with a move is kept.
    assert.equal((await admin.put('/api/repos/moved', { name: 'Moved', url: `${first.url}/y.git`, token: TOKEN })).status, 202);
    assert.equal((await admin.put('/api/repos/moved', { name: 'Moved', url: `${first.url}/z.git` })).body.repo.has_token, true);
  });

  test('push and webhook channels: a URL moved to another port loses its token unless one is sent again', async () => {
    const first = await startHttpReceiver();
    const second = await startHttpReceiver();
    closers.push(first.close, second.close);
    const channels = (base: string, token?: string) => [
      { id: 'push', kind: 'push', enabled: true, url: `${base}/push/topic`, ...(token ? { token } : {}) },
      { id: 'hook', kind: 'webhook', enabled: true, url: `${base}/hook/x`, format: 'generic', ...(token ? { token } : {}) },
    ];
    assert.equal((await admin.put('/api/notifications', { channels: channels(first.url, TOKEN), rules: {} })).status, 200);
    const moved = await admin.post('/api/notifications/test', { channels: channels(second.url), rules: {} });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(second.got.length, 2, JSON.stringify(moved.body));
    for (const r of second.got) assert.equal(r.headers.authorization, undefined, `${r.path} got the old server's token`);
    const view = await admin.get('/api/notifications');
    for (const c of view.body.channels) assert.equal(c.has_token, false, c.id);

    // A token given again with the move is kept; an edit on the same server keeps the stored one.
    assert.equal((await admin.put('/api/notifications', { channels: channels(second.url, TOKEN), rules: {} })).status, 200);
    const stay = channels(second.url).map((c) => ({ ...c, url: `${c.url}-renamed` }));
    const kept = await admin.put('/api/notifications', { channels: stay, rules: {} });
    for (const c of kept.body.channels) assert.equal(c.has_token, true, c.id);
  });
});

test('the notification test never echoes what a loopback service says (item 10)', async () => {
  // Any TCP service: a banner at once, whatever is asked.
  const banner = await listen(createTcpServer((s: Socket) => s.end('SECRET-BANNER-xyz\r\n')));
  // An SMTP-like service: a greeting, then a refusal carrying text.
  const smtpLike = await listen(
    createTcpServer((s: Socket) => {
      s.write('220 SECRET-GREETING-xyz ESMTP\r\n');
      s.on('data', () => s.write('554 SECRET-REPLY-xyz\r\n'));
      s.on('error', () => undefined);
    }),
  );
  // An HTTP service whose status text says something.
  const http = await listen(
    createHttpServer((_req, res) => {
      res.statusMessage = 'SECRET-STATUS-xyz';
      res.writeHead(500).end('SECRET-BODY-xyz');
    }),
  );
  const mail = (port: number) => ({ host: '127.0.0.1', port, security: 'none', from: 'kade@example.org', to: 'me@example.org' });
  const body = {
    channels: [
      { id: 'banner-push', kind: 'push', enabled: true, url: `http://127.0.0.1:${banner}/x` },
      { id: 'banner-mail', kind: 'email', enabled: true, smtp: mail(banner) },
      { id: 'reply-mail', kind: 'email', enabled: true, smtp: mail(smtpLike) },
      { id: 'status-hook', kind: 'webhook', enabled: true, url: `http://127.0.0.1:${http}/x` },
    ],
    rules: {},
  };
  const r = await admin.post('/api/notifications/test', body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.results.length, 4);
  for (const x of r.body.results) assert.equal(x.ok, false, JSON.stringify(x));
  assert.doesNotMatch(JSON.stringify(r.body), /SECRET-/, "the answer carries the remote side's words");
  assert.doesNotMatch(JSON.stringify((await admin.get('/api/notifications')).body), /SECRET-/, 'the delivery history does');
  const by = Object.fromEntries(r.body.results.map((x: { channel: string }) => [x.channel, x]));
  assert.deepEqual(by['status-hook'], { channel: 'status-hook', kind: 'webhook', ok: false, status: 500, error: 'HTTP 500' });
  assert.equal(by['reply-mail'].status, 554);
});

test('a network on a loopback, multicast, link-local, "this network" or reserved block is refused, naming it (item 12)', async () => {
  const cases = [
    ['127.0.0.0/8', 'loopback'],
    ['224.0.0.0/4', 'multicast'],
    ['169.254.0.0/16', 'link-local'],
    ['0.0.0.0/8', 'this network'],
    ['240.0.0.0/4', 'reserved'],
    // Subnets that only overlap one.
    ['127.10.0.0/24', 'loopback'],
    ['169.254.10.0/24', 'link-local'],
    ['0.0.0.0/0', 'this network'],
  ] as const;
  try {
    for (const [i, [subnet, named]] of cases.entries()) {
      const r = await admin.post('/api/networks', { name: `low-reserved-${i}`, subnet });
      assert.equal(r.status, 400, `${subnet}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, 'network_invalid', subnet);
      assert.deepEqual(r.body.fields, ['subnet'], subnet);
      assert.equal(r.body.params.code, 'subnet_reserved', subnet);
      assert.ok(String(r.body.detail).includes(named), `${subnet}: the reason names the ${named} block: ${r.body.detail}`);
      const review = await admin.post('/api/networks/review', { subnet });
      assert.equal(review.body.ok, false, `${subnet}: the live review agrees`);
    }
    const list = await admin.get('/api/networks');
    const made = list.body.networks.filter((n: { name: string }) => n.name.startsWith('low-reserved-'));
    assert.deepEqual(made, [], 'nothing was created');
  } finally {
    // Old code may have created some: leave the engine as it was.
    const list = await admin.get('/api/networks');
    for (const n of list.body.networks ?? []) if (n.name.startsWith('low-reserved-')) await admin.del(`/api/networks/${n.name}`);
  }
});

test("the path check tells viewers and operators nothing about files in Kade's own folders (item 13)", async () => {
  const paths = (await admin.get('/api/settings')).body.paths_in_use as Record<string, string>;
  const library = paths.LIBRARY_DIR as string;
  const backups = paths.BACKUP_DIR as string;
  const data = paths.DATA_DIR as string;
  mkdirSync(join(library, 'other-app'), { recursive: true });
  writeFileSync(join(library, 'other-app', '.env'), 'DB_PASSWORD=x\n');
  mkdirSync(backups, { recursive: true });
  writeFileSync(join(backups, 'other-app-2026.tar.zst'), 'x');
  mkdirSync(join(data, 'mine'), { recursive: true });
  const probes = [
    [join(library, 'other-app', '.env'), join(library, 'nothing-here', '.env')],
    [join(library, 'other-app'), join(library, 'nothing-here')],
    [join(backups, 'other-app-2026.tar.zst'), join(backups, 'nothing-here.tar.zst')],
    [join(server.stateDir, 'kade.db'), join(server.stateDir, 'nothing-here.db')],
  ];
  for (const [who, client] of [
    ['viewer', viewer],
    ['operator', operator],
  ] as const) {
    for (const [there, absent] of probes) {
      const ask = async (p: string) => {
        const r = await client.get(`/api/paths/check?path=${encodeURIComponent(p as string)}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return { ...r.body, path: 'P' };
      };
      assert.deepEqual(await ask(there as string), await ask(absent as string), `${who}: ${there} answers like a path that does not exist`);
    }
    // Where its apps may bind, the answer stays useful.
    const mine = await client.get(`/api/paths/check?path=${encodeURIComponent(join(data, 'mine'))}`);
    assert.equal(mine.body.exists, true, `${who}: ${JSON.stringify(mine.body)}`);
  }
  const full = await admin.get(`/api/paths/check?path=${encodeURIComponent(join(library, 'other-app', '.env'))}`);
  assert.equal(full.body.reason, 'not_a_directory', 'admins keep the whole answer');
});
