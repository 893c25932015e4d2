import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ApiAnswer, ApiClient } from '../../../test/helpers/client.ts';
import { startTestServer, type TestServer } from '../../../test/helpers/server.ts';

// The limiter counts per client address; all test traffic comes from 127.0.0.1, so every case gets its own server.
const PW = 'correct-horse-battery';

async function withServer(fn: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await startTestServer();
  try {
    await new ApiClient(server.url).loginAs('admin', PW);
    await fn(server);
  } finally {
    await server.close();
  }
}

const login = (server: TestServer, username: string, password: string) => new ApiClient(server.url).post('/api/auth/login', { username, password });

/** Status codes of six wrong logins in a row, and the last answer. */
async function sixWrong(server: TestServer, username: string): Promise<{ statuses: number[]; last: ApiAnswer<any> }> {
  const statuses: number[] = [];
  let last: ApiAnswer<any> | undefined;
  for (let i = 0; i < 6; i++) {
    last = await login(server, username, `wrong-password-${i}`);
    statuses.push(last.status);
  }
  return { statuses, last: last as ApiAnswer<any> };
}

// The parts of an answer that may differ only by the second it was given in.
const shape = (r: ApiAnswer<any>) => ({ ...r.body, params: Object.keys(r.body.params) });

test('six wrong logins give 429 with Retry-After, alike for a known and an unknown user name', async () => {
  let known: Awaited<ReturnType<typeof sixWrong>> | undefined;
  let unknown: Awaited<ReturnType<typeof sixWrong>> | undefined;
  await withServer(async (server) => {
    known = await sixWrong(server, 'admin');
    // Even the right password is refused now, so the answer cannot confirm a guess.
    const right = await login(server, 'admin', PW);
    assert.equal(right.status, 429);
    assert.deepEqual(shape(right), shape(known.last));
  });
  await withServer(async (server) => {
    unknown = await sixWrong(server, 'nobody-here');
  });
  assert.ok(known && unknown);
  assert.deepEqual(known.statuses, [401, 401, 401, 401, 401, 429]);
  assert.deepEqual(unknown.statuses, known.statuses);
  for (const r of [known.last, unknown.last]) {
    assert.equal(r.body.code, 'rate_limited');
    assert.equal(r.headers.get('content-type'), 'application/problem+json');
    const wait = Number(r.headers.get('retry-after'));
    assert.ok(Number.isInteger(wait) && wait > 0 && wait <= 60, `Retry-After ${wait}`);
    assert.equal(r.body.params.retry_after, wait);
  }
  assert.deepEqual(shape(unknown.last), shape(known.last));
});

test('guesses sent in parallel cannot slip past the limit', async () => {
  await withServer(async (server) => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => login(server, i % 2 ? 'admin' : 'ghost', `parallel-${i}`)));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [...Array(5).fill(401), ...Array(7).fill(429)]);
  });
});

test('a successful login does not wash away earlier failures', async () => {
  await withServer(async (server) => {
    for (let i = 0; i < 4; i++) assert.equal((await login(server, 'admin', `wrong-${i}`)).status, 401);
    assert.equal((await login(server, 'admin', PW)).status, 200);
    assert.equal((await login(server, 'admin', 'wrong-again')).status, 401);
    assert.equal((await login(server, 'admin', PW)).status, 429);
  });
});
