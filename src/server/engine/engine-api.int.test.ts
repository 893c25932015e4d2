import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createEngineApi, type EngineFault, withQuery } from './engine-api.ts';

// The client against a fake engine on a unix socket: what the real engine cannot be made to do on demand
// (hang, answer in odd ways, count connections). The real engine runs the contract in test/engine/docker-engine.test.ts.

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function fakeEngine(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; socketPath: string; open: () => number }> {
  const dir = mkdtempSync(join(tmpdir(), 'kade-api-'));
  dirs.push(dir);
  const socketPath = join(dir, 'docker.sock');
  const server = createServer(handle);
  let open = 0;
  server.on('connection', (s: Socket) => {
    open++;
    s.on('close', () => open--);
  });
  await new Promise<void>((r) => server.listen(socketPath, () => r()));
  return { server, socketPath, open: () => open };
}

const stop = (server: Server) => {
  server.closeAllConnections();
  return new Promise((r) => server.close(r));
};

async function rejection(p: Promise<unknown>): Promise<EngineFault> {
  return p.then(
    () => assert.fail('expected a rejection'),
    (err: unknown) => err as EngineFault,
  );
}

test('query values are sent as the engine wants them: filters JSON-encoded, absent ones left out', () => {
  assert.equal(
    withQuery('/containers/json', { all: true, filters: { label: ['a=b'] }, since: undefined }),
    '/containers/json?all=true&filters=%7B%22label%22%3A%5B%22a%3Db%22%5D%7D',
  );
  assert.equal(withQuery('/version', {}), '/version');
});

test("an engine error carries its status and the engine's own message; a body that is not JSON its text", async () => {
  const fake = await fakeEngine((req, res) => {
    if (req.url === '/json') res.writeHead(409, { 'Content-Type': 'application/json' }).end('{"message":"volume is in use - [abc]"}');
    else res.writeHead(502).end('bad gateway');
  });
  try {
    const api = createEngineApi({ socketPath: fake.socketPath }, { readTimeoutMs: 5000 });
    const a = await rejection(api.change('DELETE', '/json'));
    assert.deepEqual([a.statusCode, a.message], [409, 'volume is in use - [abc]']);
    const b = await rejection(api.read('/text'));
    assert.deepEqual([b.statusCode, b.message], [502, 'bad gateway']);
  } finally {
    await stop(fake.server);
  }
});

test('an engine that is not there is a network error with its code', async () => {
  const api = createEngineApi({ socketPath: '/nonexistent/docker.sock' }, { readTimeoutMs: 5000 });
  const err = await rejection(api.read('/version'));
  assert.equal(err.code, 'ENOENT');
  assert.equal(err.statusCode, undefined);
});

test('a read fails after the read time-out; a change waits as long as the engine takes', async () => {
  const fake = await fakeEngine((req, res) => {
    if (req.method === 'POST') setTimeout(() => res.writeHead(204).end(), 400);
    // GETs never answer.
  });
  try {
    const api = createEngineApi({ socketPath: fake.socketPath }, { readTimeoutMs: 150 });
    const err = await rejection(api.read('/version'));
    assert.deepEqual([err.name, err.timeoutMs], ['TimeoutError', 150]);
    assert.equal(await api.change('POST', '/containers/x/start'), undefined);
  } finally {
    await stop(fake.server);
  }
});

test('short calls share at most 16 connections, and a held stream takes none of them', async () => {
  let inFlight = 0;
  let most = 0;
  const fake = await fakeEngine((req, res) => {
    if (req.url?.startsWith('/events')) return void res.writeHead(200).flushHeaders();
    inFlight++;
    most = Math.max(most, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('[]');
    }, 20);
  });
  try {
    const api = createEngineApi({ socketPath: fake.socketPath }, { readTimeoutMs: 5000 });
    const streams = await Promise.all(Array.from({ length: 20 }, () => api.stream('GET', '/events')));
    const answers = await Promise.all(Array.from({ length: 50 }, () => api.read<unknown[]>('/containers/json')));
    assert.equal(answers.length, 50);
    assert.ok(most <= 16, `${most} calls at once`);
    assert.ok(fake.open() <= 20 + 16, `${fake.open()} connections open`);
    for (const s of streams) s.destroy();
  } finally {
    await stop(fake.server);
  }
});

test('upgrade hands over the raw connection after the 101, with the bytes that came along', async () => {
  const fake = await fakeEngine((_req, res) => res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"message":"No such exec instance: x"}'));
  fake.server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    assert.equal(req.headers.upgrade, 'tcp');
    socket.write('HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\nhello ');
    socket.on('data', (b: Buffer) => socket.write(b));
    socket.on('end', () => socket.end());
  });
  try {
    const api = createEngineApi({ socketPath: fake.socketPath }, { readTimeoutMs: 5000 });
    const duplex = await api.upgrade('/exec/1/start', { Detach: false, Tty: false });
    let text = '';
    duplex.on('data', (b: Buffer) => {
      text += b.toString();
    });
    const ended = new Promise((r) => duplex.once('end', r));
    duplex.end('world');
    await ended;
    assert.equal(text, 'hello world');
  } finally {
    await stop(fake.server);
  }
});
