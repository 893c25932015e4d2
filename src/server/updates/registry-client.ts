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

/** Asks a registry for the digest of a tag (HTTP HEAD on the manifest), answering its auth challenge. */
export function createRegistryClient(opts: RegistryClientOptions) {
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const call = (url: string, init: RequestInit) => doFetch(url, { ...init, redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });

  async function bearerToken(params: Record<string, string>, ref: Repo, creds: RegistryCredentials | null): Promise<string | null> {
    if (!params.realm) return null;
    const url = new URL(params.realm);
    if (params.service) url.searchParams.set('service', params.service);
    url.searchParams.set('scope', params.scope ?? `repository:${ref.repository}:pull`);
    const res = await call(url.toString(), { headers: creds ? { authorization: basic(creds) } : {} });
    if (!res.ok) {
      await res.body?.cancel();
      return null;
    }
    const body = (await res.json()) as { token?: string; access_token?: string };
    return body.token ?? body.access_token ?? null;
  }

  /** The authorization header the challenge asks for; null when it cannot be met. */
  async function answer(challenge: string | null, ref: Repo, creds: RegistryCredentials | null): Promise<string | null> {
    const c = parseChallenge(challenge);
    if (c?.scheme === 'bearer') {
      const token = await bearerToken(c.params, ref, creds);
      return token ? `Bearer ${token}` : null;
    }
    if (c?.scheme === 'basic' && creds) return basic(creds);
    return null;
  }

  /** The account, only when it belongs to this registry. */
  function credsFor(ref: Repo): RegistryCredentials | null {
    const stored = opts.credentials();
    return stored && stored.host === ref.registry ? stored : null;
  }

  const apiBase = (ref: Repo) => `${isLoopback(ref.registry) ? 'http' : 'https'}://${apiHost(ref.registry)}/v2/${ref.repository}`;

  /**
   * Sends the request (with `known` authorization when there is one); on a 401 answers the
   * challenge and sends it once more. `authorization` is what the next request can reuse.
   */
  async function authorized(
    ref: Repo,
    creds: RegistryCredentials | null,
    send: (authorization?: string) => Promise<Response>,
    known?: string,
  ): Promise<{ res: Response; authorization: string | undefined } | { res: null; reason: string }> {
    const res = await send(known);
    if (res.status !== 401) return { res, authorization: known };
    await res.body?.cancel();
    const authorization = await answer(res.headers.get('www-authenticate'), ref, creds);
    if (!authorization) return { res: null, reason: `${ref.registry} wants credentials${creds ? ' that it refused' : ''}` };
    return { res: await send(authorization), authorization };
  }

  return {
    async remoteDigest(ref: ImageRef): Promise<RemoteDigest> {
      const creds = credsFor(ref);
      const url = `${apiBase(ref)}/manifests/${encodeURIComponent(ref.tag)}`;
      const head = (authorization?: string) => call(url, { method: 'HEAD', headers: { accept: MANIFEST_ACCEPT, ...(authorization ? { authorization } : {}) } });
      try {
        const a = await authorized(ref, creds, head);
        if (!a.res) return { ok: false, reason: a.reason };
        const res = a.res;
        const digest = res.headers.get('docker-content-digest');
        if (!res.ok) return { ok: false, reason: `${ref.registry} answered ${res.status}` };
        if (!digest) return { ok: false, reason: `${ref.registry} sent no Docker-Content-Digest` };
        return { ok: true, digest };
      } catch (err) {
        return { ok: false, reason: `${registryName(ref)} not reachable: ${errorMessage(err)}` };
      }
    },

    /**
     * The tags of a repository (`GET /v2/<repo>/tags/list`), following `Link: rel="next"` pages
     * on the same origin up to `max` tags. `pageSize` asks for pages of that size (`?n=`); without
     * it the registry picks (distribution 2.x sends everything, others page on their own).
     */
    async listTags(ref: Repo, o: { max?: number; pageSize?: number } = {}): Promise<RemoteTags> {
      const max = o.max ?? MAX_TAGS;
      const creds = credsFor(ref);
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
          const page: string = url;
          const get = (auth?: string) => call(page, { headers: { accept: 'application/json', ...(auth ? { authorization: auth } : {}) } });
          const a = await authorized(ref, creds, get, authorization);
          if (!a.res) return { ok: false, reason: a.reason };
          authorization = a.authorization;
          const res = a.res;
          if (!res.ok) {
            await res.body?.cancel();
            if (res.status === 401) return { ok: false, reason: `${ref.registry} wants credentials${creds ? ' that it refused' : ''}` };
            if (res.status === 404) return { ok: false, reason: `${registryName(ref)} has no repository ${ref.repository}` };
            return { ok: false, reason: `${ref.registry} answered ${res.status}` };
          }
          const body = (await res.json().catch(() => null)) as { tags?: unknown } | null;
          if (!body || (body.tags != null && !Array.isArray(body.tags))) return { ok: false, reason: `${ref.registry} sent no tag list` };
          for (const t of (body.tags as unknown[] | null | undefined) ?? []) if (typeof t === 'string') tags.add(t);
          const next = nextLink(res.headers.get('link'), page);
          more = next !== null;
          // The authorization belongs to this registry: never send it to a host a Link points elsewhere.
          url = next && new URL(next).origin === first.origin ? next : null;
        }
        return { ok: true, tags: [...tags].slice(0, max), truncated: tags.size > max || more };
      } catch (err) {
        return { ok: false, reason: `${registryName(ref)} not reachable: ${errorMessage(err)}` };
      }
    },
  };
}

export type RegistryClient = ReturnType<typeof createRegistryClient>;
