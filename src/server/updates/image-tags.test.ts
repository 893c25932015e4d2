import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sortTags } from './image-tags.ts';
import { createRegistryClient, nextLink } from './registry-client.ts';

const ref = { registry: 'registry.example', repository: 'o/a' };

test('latest first, then versions newest first with the floating tag above the ones it covers', () => {
  assert.deepEqual(sortTags(['15.5', '16.1', '15', 'latest', '16', '16.2', '9.6', '10']), ['latest', '16', '16.2', '16.1', '15', '15.5', '10', '9.6']);
});

test('dotted parts compare as numbers, also past the range of a double', () => {
  assert.deepEqual(sortTags(['1.9.0', '1.10.0', '1.2.10', '1.2.9', '01.2.11']), ['1.10.0', '1.9.0', '01.2.11', '1.2.10', '1.2.9']);
  assert.deepEqual(sortTags(['20240101123456789012', '20240101123456789013']), ['20240101123456789013', '20240101123456789012']);
});

test('a plain version before its variants; a v prefix counts as a version', () => {
  assert.deepEqual(sortTags(['1.25-alpine', '1.25', 'v1.26.0', '1.25-bookworm', '1.25.3-alpine3.18', '1.25.3-alpine3.19']), [
    'v1.26.0',
    '1.25',
    '1.25-alpine',
    '1.25-bookworm',
    '1.25.3-alpine3.18',
    '1.25.3-alpine3.19',
  ]);
});

test('other tags follow alphabetically; hex commit ids are not versions; duplicates go', () => {
  assert.deepEqual(sortTags(['stable', '2', 'edge', 'sha-4f3e2a1', '4f3e2a1', 'alpine', '2', 'latest', 'main']), [
    'latest',
    '2',
    '4f3e2a1',
    'alpine',
    'edge',
    'main',
    'sha-4f3e2a1',
    'stable',
  ]);
  assert.deepEqual(sortTags([]), []);
});

test('Link headers: the next page, relative to the page asked; none on the last page', () => {
  const base = 'http://127.0.0.1:5000/v2/a/b/tags/list?n=2';
  assert.equal(nextLink('</v2/a/b/tags/list?last=2&n=2>; rel="next"', base), 'http://127.0.0.1:5000/v2/a/b/tags/list?last=2&n=2');
  assert.equal(nextLink('<https://r.example/v2/x?last=y>; rel=next', base), 'https://r.example/v2/x?last=y');
  assert.equal(nextLink('</v2/a/b/tags/list?n=2>; rel="prev"', base), null);
  assert.equal(nextLink(null, base), null);
});

test('a Link to another host is not followed, so the authorization never goes there', async () => {
  const asked: { url: string; auth: string | null }[] = [];
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    const auth = new Headers(init?.headers).get('authorization');
    asked.push({ url, auth });
    if (!auth) return new Response(null, { status: 401, headers: { 'www-authenticate': 'Basic realm="r"' } });
    return Response.json({ name: 'o/a', tags: ['1'] }, { headers: { link: '<https://elsewhere.example/v2/o/a/tags/list?last=1>; rel="next"' } });
  }) as typeof fetch;
  const client = createRegistryClient({ credentials: () => ({ host: 'ghcr.io', user: 'u', token: 't' }), fetch: fetchFn });
  assert.deepEqual(await client.listTags({ registry: 'ghcr.io', repository: 'o/a' }), { ok: true, tags: ['1'], truncated: true });
  assert.deepEqual(
    asked.map((a) => new URL(a.url).host),
    ['ghcr.io', 'ghcr.io'],
  );
});

/**
 * A registry that pages its tag list (`?n=`, `?last=`, relative Link as distribution 3 does) and
 * wants a Bearer token; `pageDefault` is the page size it picks when asked for none.
 */
function pagingRegistry(all: string[], pageDefault = 2) {
  const calls = { pages: [] as string[], tokens: 0 };
  const fn = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    if (url.host === 'auth.example') {
      calls.tokens++;
      return Response.json({ token: 'TKN' });
    }
    if (new Headers(init?.headers).get('authorization') !== 'Bearer TKN') {
      return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer realm="https://auth.example/token",service="registry.example"' } });
    }
    calls.pages.push(url.search);
    const n = Number(url.searchParams.get('n') ?? pageDefault);
    const last = url.searchParams.get('last');
    const from = last === null ? 0 : all.indexOf(last) + 1;
    const tags = all.slice(from, from + n);
    const more = from + n < all.length;
    const headers: Record<string, string> = more ? { link: `</v2/o/a/tags/list?last=${tags.at(-1)}&n=${n}>; rel="next"` } : {};
    return Response.json({ name: 'o/a', tags }, { headers });
  }) as typeof fetch;
  return { calls, fn };
}

test('pages are followed with the token of the first one, up to the cap', async () => {
  const tags = ['1', '2', '3', '4', '5'];
  let reg = pagingRegistry(tags);
  let client = createRegistryClient({ credentials: () => null, fetch: reg.fn });
  assert.deepEqual(await client.listTags(ref, { pageSize: 2 }), { ok: true, tags, truncated: false });
  assert.deepEqual(reg.calls.pages, ['?n=2', '?last=2&n=2', '?last=4&n=2']);
  assert.equal(reg.calls.tokens, 1, 'one token for all pages');

  reg = pagingRegistry(tags, 3);
  client = createRegistryClient({ credentials: () => null, fetch: reg.fn });
  assert.deepEqual(await client.listTags(ref), { ok: true, tags, truncated: false }, 'pages the registry chose itself');
  assert.deepEqual(reg.calls.pages, ['', '?last=3&n=3']);

  reg = pagingRegistry(tags);
  client = createRegistryClient({ credentials: () => null, fetch: reg.fn });
  assert.deepEqual(await client.listTags(ref, { pageSize: 2, max: 3 }), { ok: true, tags: ['1', '2', '3'], truncated: true });
  assert.equal(reg.calls.pages.length, 2, 'no page after the cap is reached');
});

test('a Link that never ends stops after a bounded number of pages', async () => {
  let asked = 0;
  const fn = (async () => {
    asked++;
    return Response.json({ tags: ['1'] }, { headers: { link: '</v2/o/a/tags/list?last=1>; rel="next"' } });
  }) as typeof fetch;
  const r = await createRegistryClient({ credentials: () => null, fetch: fn }).listTags(ref);
  assert.deepEqual(r, { ok: true, tags: ['1'], truncated: true });
  assert.ok(asked <= 50, `${asked} pages`);
});
