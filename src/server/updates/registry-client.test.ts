import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseImageRef } from './image-ref.ts';
import { createRegistryClient, MANIFEST_ACCEPT, parseChallenge } from './registry-client.ts';

const DIGEST = `sha256:${'4'.repeat(64)}`;
const ref = (s: string) => parseImageRef(s) ?? assert.fail(s);

/** A fake registry with a token service, recording every request it is sent. */
function fakeFetch(mode: 'bearer' | 'basic') {
  const calls: { url: string; method: string; auth: string | null; accept: string | null }[] = [];
  const fn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const h = new Headers(init?.headers);
    const url = String(input);
    calls.push({ url, method: init?.method ?? 'GET', auth: h.get('authorization'), accept: h.get('accept') });
    if (url.startsWith('https://auth.example/token')) {
      const anonymousOk = !url.includes('private');
      if (!anonymousOk && h.get('authorization') !== `Basic ${Buffer.from('u:t').toString('base64')}`) return new Response(null, { status: 401 });
      return Response.json({ token: 'TKN' });
    }
    const want = mode === 'bearer' ? 'Bearer TKN' : `Basic ${Buffer.from('u:t').toString('base64')}`;
    if (h.get('authorization') !== want) {
      const challenge =
        mode === 'bearer'
          ? `Bearer realm="https://auth.example/token",service="registry.example",scope="repository:${url.split('/v2/')[1]?.split('/manifests')[0]}:pull"`
          : 'Basic realm="kade-test"';
      return new Response(null, { status: 401, headers: { 'www-authenticate': challenge } });
    }
    return new Response(null, { status: 200, headers: { 'docker-content-digest': DIGEST } });
  };
  return { calls, fn: fn as typeof fetch };
}

test('the Bearer challenge is answered with a token, anonymously without an account', async () => {
  const f = fakeFetch('bearer');
  const client = createRegistryClient({ credentials: () => null, fetch: f.fn });
  assert.deepEqual(await client.remoteDigest(ref('nginx:1')), { ok: true, digest: DIGEST });
  assert.equal(f.calls[0]?.url, 'https://registry-1.docker.io/v2/library/nginx/manifests/1');
  assert.equal(f.calls[0]?.method, 'HEAD');
  assert.equal(f.calls[0]?.accept, MANIFEST_ACCEPT);
  assert.match(f.calls[1]?.url ?? '', /service=registry.example&scope=repository%3Alibrary%2Fnginx%3Apull/);
  assert.equal(f.calls[1]?.auth, null);
  assert.equal(f.calls[2]?.auth, 'Bearer TKN');
});

test('the token endpoint gets the configured account only for its own registry', async () => {
  const f = fakeFetch('bearer');
  const creds = { host: 'ghcr.io', user: 'u', token: 't' };
  const client = createRegistryClient({ credentials: () => creds, fetch: f.fn });
  assert.equal((await client.remoteDigest(ref('ghcr.io/o/private:1'))).ok, true);
  assert.equal(f.calls[1]?.auth, `Basic ${Buffer.from('u:t').toString('base64')}`);
  const other = await client.remoteDigest(ref('quay.io/o/private:1'));
  assert.equal(other.ok, false, 'no account sent to another registry');
  assert.equal(f.calls.at(-1)?.auth, null);
});

test('Basic auth with the account; without one the registry stays unknown', async () => {
  const f = fakeFetch('basic');
  const withAccount = createRegistryClient({ credentials: () => ({ host: '127.0.0.1:5000', user: 'u', token: 't' }), fetch: f.fn });
  assert.deepEqual(await withAccount.remoteDigest(ref('127.0.0.1:5000/a/b')), { ok: true, digest: DIGEST });
  assert.equal(f.calls[0]?.url, 'http://127.0.0.1:5000/v2/a/b/manifests/latest', 'loopback over plain HTTP');
  const without = await createRegistryClient({ credentials: () => null, fetch: f.fn }).remoteDigest(ref('127.0.0.1:5000/a/b'));
  assert.deepEqual(without, { ok: false, reason: '127.0.0.1:5000 wants credentials' });
});

test('an unreachable registry is a failure with the reason', async () => {
  const client = createRegistryClient({ credentials: () => null, fetch: (async () => Promise.reject(new TypeError('fetch failed'))) as typeof fetch });
  const r = await client.remoteDigest(ref('ghcr.io/o/a:1'));
  assert.deepEqual(r, { ok: false, reason: 'ghcr.io not reachable: fetch failed' });
});

test('challenge headers are parsed', () => {
  assert.deepEqual(parseChallenge('Bearer realm="https://a/t",service="s",scope="repository:x:pull"'), {
    scheme: 'bearer',
    params: { realm: 'https://a/t', service: 's', scope: 'repository:x:pull' },
  });
  assert.deepEqual(parseChallenge('Basic realm="r"'), { scheme: 'basic', params: { realm: 'r' } });
  assert.equal(parseChallenge(null), null);
});
