import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../src/server/http/context.ts';
import { resolveInside, serveWeb } from '../../src/server/http/static.ts';

// A fake build next to a file that must never be served, so traversal attempts have a target.
let dir: string;
let web: string;
let app: OpenAPIHono<AppEnv>;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kade-static-'));
  web = join(dir, 'web');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>Kade</title>');
  writeFileSync(join(web, 'assets', 'index-AbC123.js'), 'console.log(1)');
  writeFileSync(join(web, 'assets', 'index-AbC123.css'), 'body{}');
  writeFileSync(join(web, 'favicon.svg'), '<svg/>');
  writeFileSync(join(dir, 'secret.txt'), 'top secret');
  app = new OpenAPIHono<AppEnv>();
  app.get('/api/known', (c) => c.json({ ok: true }));
  app.notFound((c) => c.json({ code: 'not_found' }, 404));
  serveWeb(app, web);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('index.html at / with security headers and no long cache', async () => {
  const r = await app.request('/');
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'self'.*frame-ancestors 'none'/);
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(r.headers.get('referrer-policy'), 'same-origin');
  assert.equal(r.headers.get('cache-control'), 'no-cache');
  assert.match(await r.text(), /<title>Kade/);
});

test('hashed assets: right content type, cached as immutable', async () => {
  const js = await app.request('/assets/index-AbC123.js');
  assert.equal(js.status, 200);
  assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.match(js.headers.get('cache-control') ?? '', /immutable/);
  const css = await app.request('/assets/index-AbC123.css');
  assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
  const svg = await app.request('/favicon.svg');
  assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
  assert.equal(svg.headers.get('cache-control'), 'no-cache');
});

test('any other page path gets index.html; a missing asset is a 404, not HTML', async () => {
  for (const p of ['/apps', '/apps/whoami/logs', '/store?x=1']) {
    const r = await app.request(p);
    assert.equal(r.status, 200, p);
    assert.match(await r.text(), /<title>Kade/, p);
  }
  const missing = await app.request('/assets/gone-123.js');
  assert.equal(missing.status, 404);
});

test('API paths never fall back to the interface', async () => {
  assert.deepEqual(await (await app.request('/api/known')).json(), { ok: true });
  const r = await app.request('/api/unknown');
  assert.equal(r.status, 404);
  assert.deepEqual(await r.json(), { code: 'not_found' });
  const post = await app.request('/apps', { method: 'POST' });
  assert.equal(post.status, 404);
});

test('path traversal cannot leave the web folder', async () => {
  const attempts = ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/..%2fsecret.txt', '/%2e%2e%5csecret.txt', '/a%00b'];
  for (const p of attempts) {
    const r = await app.request(p);
    assert.doesNotMatch(await r.text(), /top secret/, p);
  }
  assert.equal(resolveInside(web, '/%2e%2e/secret.txt'), null);
  assert.equal(resolveInside(web, '/%E0%A4%A'), null);
  assert.equal(resolveInside(web, '/assets/x.js'), join(web, 'assets', 'x.js'));
});

test('a missing build answers a plain 503 that names the fix', async () => {
  const bare = new OpenAPIHono<AppEnv>();
  serveWeb(bare, join(dir, 'not-built'));
  const r = await bare.request('/');
  assert.equal(r.status, 503);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal(await r.text(), 'web interface not built: run npm run build\n');
});
