import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from './context.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** Sent with every file of the interface; the CSP matters for the HTML, the rest is harmless elsewhere. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

// Vite puts content-hashed names under /assets/, so a name never changes meaning.
const IMMUTABLE = 'public, max-age=31536000, immutable';
// index.html and unhashed files (favicon) must be revalidated, or a new build would not reach browsers.
const REVALIDATE = 'no-cache';

const NOT_BUILT = 'web interface not built: run npm run build\n';

/** Whether a path belongs to the API or the service endpoints, which never fall back to the interface. */
function isServicePath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path === '/healthz';
}

/**
 * The file under `root` a URL path names, or null when it would leave `root`
 * (encoded `..`, backslashes, NUL) or cannot be decoded.
 */
export function resolveInside(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null; // Malformed percent-encoding names no file.
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const full = resolve(root, `.${decoded}`);
  return full.startsWith(root + sep) ? full : null;
}

async function fileSize(path: string): Promise<number | null> {
  const s = await stat(path).catch(() => null);
  return s?.isFile() ? s.size : null;
}

async function sendFile(c: Context<AppEnv>, path: string, cache: string): Promise<Response> {
  const body = await readFile(path);
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'Content-Type': TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
    'Cache-Control': cache,
  };
  return c.body(body, 200, headers);
}

/**
 * Serves the built interface from `webDir` for every non-API GET: real files as
 * they are, `index.html` for any other path so the browser router can take
 * over, and a plain 503 naming the fix while the interface is not built.
 * Registered after the API routes; unknown API paths still get the API's 404.
 */
export function serveWeb(app: OpenAPIHono<AppEnv>, webDir: string): void {
  const root = resolve(webDir);
  const indexPath = resolve(root, 'index.html');

  app.get('*', async (c, next) => {
    const path = c.req.path;
    if (isServicePath(path)) return next();
    // Checked per request, so building while the server runs needs no restart.
    if ((await fileSize(indexPath)) === null) {
      return c.text(NOT_BUILT, 503, { 'Cache-Control': 'no-store', 'Retry-After': '60' });
    }
    const file = path === '/' ? null : resolveInside(root, path);
    if (file && (await fileSize(file)) !== null) {
      return sendFile(c, file, path.startsWith('/assets/') ? IMMUTABLE : REVALIDATE);
    }
    // A missing hashed asset is a stale page asking for an old build; HTML in its place would only confuse.
    if (path.startsWith('/assets/')) return c.text('not found', 404, { 'Cache-Control': 'no-store' });
    return sendFile(c, indexPath, REVALIDATE);
  });
}
