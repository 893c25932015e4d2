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

  async function bearerToken(params: Record<string, string>, ref: ImageRef, creds: RegistryCredentials | null): Promise<string | null> {
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
  async function answer(challenge: string | null, ref: ImageRef, creds: RegistryCredentials | null): Promise<string | null> {
    const c = parseChallenge(challenge);
    if (c?.scheme === 'bearer') {
      const token = await bearerToken(c.params, ref, creds);
      return token ? `Bearer ${token}` : null;
    }
    if (c?.scheme === 'basic' && creds) return basic(creds);
    return null;
  }

  return {
    async remoteDigest(ref: ImageRef): Promise<RemoteDigest> {
      const stored = opts.credentials();
      const creds = stored && stored.host === ref.registry ? stored : null;
      const scheme = isLoopback(ref.registry) ? 'http' : 'https';
      const url = `${scheme}://${apiHost(ref.registry)}/v2/${ref.repository}/manifests/${encodeURIComponent(ref.tag)}`;
      const head = (authorization?: string) => call(url, { method: 'HEAD', headers: { accept: MANIFEST_ACCEPT, ...(authorization ? { authorization } : {}) } });
      try {
        let res = await head();
        if (res.status === 401) {
          const auth = await answer(res.headers.get('www-authenticate'), ref, creds);
          if (!auth) return { ok: false, reason: `${ref.registry} wants credentials${creds ? ' that it refused' : ''}` };
          res = await head(auth);
        }
        const digest = res.headers.get('docker-content-digest');
        if (!res.ok) return { ok: false, reason: `${ref.registry} answered ${res.status}` };
        if (!digest) return { ok: false, reason: `${ref.registry} sent no Docker-Content-Digest` };
        return { ok: true, digest };
      } catch (err) {
        return { ok: false, reason: `${ref.registry === DOCKER_HUB ? 'Docker Hub' : ref.registry} not reachable: ${errorMessage(err)}` };
      }
    },
  };
}

export type RegistryClient = ReturnType<typeof createRegistryClient>;
