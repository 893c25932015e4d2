import { errorMessage } from '../core/errors.ts';
import { apiHost, DOCKER_HUB, type ImageRef, isLoopback } from './image-ref.ts';

/** The configured account (settings REGISTRY_URL / REGISTRY_USER / REGISTRY_TOKEN), sent only to its own host. */
export interface RegistryCredentials {
  /** Registry host as in image references (`ghcr.io`, `127.0.0.1:5000`, `docker.io`). */
  host: string;
  user: string;
  token: string;
}

export type RemoteDigest = { ok: true; digest: string } | { ok: false; reason: string };
/** `truncated` when the registry had more than the cap (or its pages ran past the page limit). */
export type RemoteTags = { ok: true; tags: string[]; truncated: boolean } | { ok: false; reason: string };

/** Enough tags for any version picker; a repository of nightly builds can have tens of thousands. */
export const MAX_TAGS = 1000;
/** A registry whose `Link` header never ends must not keep us paging. */
const MAX_PAGES = 50;

/** Manifest list and OCI index first: the digest of the list is what a multi-arch pull records locally. */
export const MANIFEST_ACCEPT = [
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
].join(', ');

/** `Bearer realm="…",service="…"` → scheme and parameters. */
export function parseChallenge(header: string | null): { scheme: string; params: Record<string, string> } | null {
  if (!header) return null;
  const m = /^\s*(\w+)\s*(.*)$/s.exec(header);
  if (!m?.[1]) return null;
  const params: Record<string, string> = {};
  for (const p of (m[2] ?? '').matchAll(/(\w+)\s*=\s*(?:"([^"]*)"|([^,\s]*))/g)) {
    if (p[1]) params[p[1].toLowerCase()] = p[2] ?? p[3] ?? '';
  }
  return { scheme: m[1].toLowerCase(), params };
}

const basic = (c: RegistryCredentials) => `Basic ${Buffer.from(`${c.user}:${c.token}`).toString('base64')}`;

/** The URL of `Link: <…>; rel="next"` (relative to the page asked), or null on the last page. */
export function nextLink(header: string | null, base: string): string | null {
  const m = header ? /<([^>]*)>\s*;[^,]*\brel="?next"?/i.exec(header) : null;
  if (!m?.[1]) return null;
  try {
    return new URL(m[1], base).toString();
  } catch {
    return null;
  }
}

type Repo = Pick<ImageRef, 'registry' | 'repository'>;
const registryName = (r: Repo) => (r.registry === DOCKER_HUB ? 'Docker Hub' : r.registry);

export interface RegistryClientOptions {
  credentials: () => RegistryCredentials | null;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** How the client reaches registries: its fetch (with the time-out) and the configured account. */
interface Client {
  call: (url: string, init: RequestInit) => Promise<Response>;
  credentials: () => RegistryCredentials | null;
}

async function bearerToken(c: Client, params: Record<string, string>, ref: Repo, creds: RegistryCredentials | null): Promise<string | null> {
  if (!params.realm) return null;
  const url = new URL(params.realm);
  if (params.service) url.searchParams.set('service', params.service);
  url.searchParams.set('scope', params.scope ?? `repository:${ref.repository}:pull`);
  const res = await c.call(url.toString(), { headers: creds ? { authorization: basic(creds) } : {} });
  if (!res.ok) {
    await res.body?.cancel();
    return null;
  }
  const body = (await res.json()) as { token?: string; access_token?: string };
  return body.token ?? body.access_token ?? null;
}

/** The authorization header the challenge asks for; null when it cannot be met. */
async function answer(c: Client, challenge: string | null, ref: Repo, creds: RegistryCredentials | null): Promise<string | null> {
  const ch = parseChallenge(challenge);
  if (ch?.scheme === 'bearer') {
    const token = await bearerToken(c, ch.params, ref, creds);
    return token ? `Bearer ${token}` : null;
  }
  if (ch?.scheme === 'basic' && creds) return basic(creds);
  return null;
}

/** The account, only when it belongs to this registry. */
function credsFor(c: Client, ref: Repo): RegistryCredentials | null {
  const stored = c.credentials();
  return stored && stored.host === ref.registry ? stored : null;
}

const apiBase = (ref: Repo) => `${isLoopback(ref.registry) ? 'http' : 'https'}://${apiHost(ref.registry)}/v2/${ref.repository}`;

/**
 * Sends the request (with `known` authorization when there is one); on a 401 answers the
 * challenge and sends it once more. `authorization` is what the next request can reuse.
 */
async function authorized(
  c: Client,
  ref: Repo,
  creds: RegistryCredentials | null,
  send: (authorization?: string) => Promise<Response>,
  known?: string,
): Promise<{ res: Response; authorization: string | undefined } | { res: null; reason: string }> {
  const res = await send(known);
  if (res.status !== 401) return { res, authorization: known };
  await res.body?.cancel();
  const authorization = await answer(c, res.headers.get('www-authenticate'), ref, creds);
  if (!authorization) return { res: null, reason: `${ref.registry} wants credentials${creds ? ' that it refused' : ''}` };
  return { res: await send(authorization), authorization };
}

async function remoteDigest(c: Client, ref: ImageRef): Promise<RemoteDigest> {
  const creds = credsFor(c, ref);
  const url = `${apiBase(ref)}/manifests/${encodeURIComponent(ref.tag)}`;
  const head = (authorization?: string) => c.call(url, { method: 'HEAD', headers: { accept: MANIFEST_ACCEPT, ...(authorization ? { authorization } : {}) } });
  try {
    const a = await authorized(c, ref, creds, head);
    if (!a.res) return { ok: false, reason: a.reason };
    const res = a.res;
    const digest = res.headers.get('docker-content-digest');
    if (!res.ok) return { ok: false, reason: `${ref.registry} answered ${res.status}` };
    if (!digest) return { ok: false, reason: `${ref.registry} sent no Docker-Content-Digest` };
    return { ok: true, digest };
  } catch (err) {
    return { ok: false, reason: `${registryName(ref)} not reachable: ${errorMessage(err)}` };
  }
}

/** One page of tags read into `tags`: the next page's URL (null on the last), or why the list cannot be had. */
async function tagPage(
  c: Client,
  ref: Repo,
  creds: RegistryCredentials | null,
  page: { url: string; authorization: string | undefined; tags: Set<string> },
): Promise<{ ok: true; next: string | null; authorization: string | undefined } | { ok: false; reason: string }> {
  const get = (auth?: string) => c.call(page.url, { headers: { accept: 'application/json', ...(auth ? { authorization: auth } : {}) } });
  const a = await authorized(c, ref, creds, get, page.authorization);
  if (!a.res) return { ok: false, reason: a.reason };
  const res = a.res;
  if (!res.ok) {
    await res.body?.cancel();
    if (res.status === 401) return { ok: false, reason: `${ref.registry} wants credentials${creds ? ' that it refused' : ''}` };
    if (res.status === 404) return { ok: false, reason: `${registryName(ref)} has no repository ${ref.repository}` };
    return { ok: false, reason: `${ref.registry} answered ${res.status}` };
  }
  const body = (await res.json().catch(() => null)) as { tags?: unknown } | null;
  if (!body || (body.tags != null && !Array.isArray(body.tags))) return { ok: false, reason: `${ref.registry} sent no tag list` };
  for (const t of (body.tags as unknown[] | null | undefined) ?? []) if (typeof t === 'string') page.tags.add(t);
  return { ok: true, next: nextLink(res.headers.get('link'), page.url), authorization: a.authorization };
}

/**
 * The tags of a repository (`GET /v2/<repo>/tags/list`), following `Link: rel="next"` pages
 * on the same origin up to `max` tags. `pageSize` asks for pages of that size (`?n=`); without
 * it the registry picks (distribution 2.x sends everything, others page on their own).
 */
async function listTags(c: Client, ref: Repo, o: { max?: number; pageSize?: number } = {}): Promise<RemoteTags> {
  const max = o.max ?? MAX_TAGS;
  const creds = credsFor(c, ref);
  const first = new URL(`${apiBase(ref)}/tags/list`);
  if (o.pageSize) first.searchParams.set('n', String(o.pageSize));
  const tags = new Set<string>();
  let url: string | null = first.toString();
  let authorization: string | undefined;
  let pages = 0;
  let more = false;
  try {
    while (url && tags.size < max) {
      if (++pages > MAX_PAGES) return { ok: true, tags: [...tags].slice(0, max), truncated: true };
      const p = await tagPage(c, ref, creds, { url, authorization, tags });
      if (!p.ok) return p;
      authorization = p.authorization;
      more = p.next !== null;
      // The authorization belongs to this registry: never send it to a host a Link points elsewhere.
      url = p.next && new URL(p.next).origin === first.origin ? p.next : null;
    }
    return { ok: true, tags: [...tags].slice(0, max), truncated: tags.size > max || more };
  } catch (err) {
    return { ok: false, reason: `${registryName(ref)} not reachable: ${errorMessage(err)}` };
  }
}

/** Asks a registry for the digest of a tag (HTTP HEAD on the manifest), answering its auth challenge. */
export function createRegistryClient(opts: RegistryClientOptions) {
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const c: Client = {
    call: (url, init) => doFetch(url, { ...init, redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) }),
    credentials: () => opts.credentials(),
  };
  return {
    remoteDigest: (ref: ImageRef): Promise<RemoteDigest> => remoteDigest(c, ref),
    /**
     * The tags of a repository (`GET /v2/<repo>/tags/list`), following `Link: rel="next"` pages
     * on the same origin up to `max` tags. `pageSize` asks for pages of that size (`?n=`); without
     * it the registry picks (distribution 2.x sends everything, others page on their own).
     */
    listTags: (ref: Repo, o?: { max?: number; pageSize?: number }): Promise<RemoteTags> => listTags(c, ref, o),
  };
}

export type RegistryClient = ReturnType<typeof createRegistryClient>;
