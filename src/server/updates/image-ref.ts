/** An image reference split the way a registry needs it: where, which repository, which tag. */
export interface ImageRef {
  /** Host (and port) as the engine names it; `docker.io` for Docker Hub. */
  registry: string;
  /** Repository path inside the registry; Docker Hub short names get `library/`. */
  repository: string;
  tag: string;
  /** Set when the reference pins a digest (`name@sha256:...`); such an image never has an update. */
  digest: string | null;
}

export const DOCKER_HUB = 'docker.io';
const HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
const REPO_PART = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-fA-F0-9]{32,}$/;

/** The first path part is a registry when it has a dot or a port, or is `localhost` (the engine's own rule). */
const isRegistryPart = (part: string) => part.includes('.') || part.includes(':') || part === 'localhost';

/** Parses `[registry/]name[:tag][@digest]`; null for anything the engine would refuse too. */
export function parseImageRef(ref: string): ImageRef | null {
  let rest = ref.trim();
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return null;
  }
  const slash = rest.indexOf('/');
  const first = slash >= 0 ? rest.slice(0, slash) : '';
  let registry = DOCKER_HUB;
  if (slash >= 0 && isRegistryPart(first)) {
    registry = HUB_ALIASES.has(first) ? DOCKER_HUB : first;
    rest = rest.slice(slash + 1);
  }
  let tag = 'latest';
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  if (!TAG.test(tag) || rest === '' || !rest.split('/').every((p) => REPO_PART.test(p))) return null;
  const repository = registry === DOCKER_HUB && !rest.includes('/') ? `library/${rest}` : rest;
  return { registry, repository, tag, digest };
}

/** `registry/repository:tag`, the key of cached results (name plus tag). */
export const refKey = (r: ImageRef): string => `${r.registry}/${r.repository}:${r.tag}`;

/** The host the registry API answers on: Docker Hub's API is not at docker.io itself. */
export const apiHost = (registry: string): string => (registry === DOCKER_HUB ? 'registry-1.docker.io' : registry);

/** Plain HTTP only where the engine allows it without configuration: loopback registries. */
export function isLoopback(registry: string): boolean {
  const host = registry.replace(/:\d+$/, '');
  return host === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '[::1]';
}

/**
 * The digest the engine recorded for this repository among an image's `RepoDigests`
 * (`name@sha256:...`, one per repository the image was pulled from or pushed to); null when none.
 */
export function localDigestFor(ref: ImageRef, repoDigests: readonly string[]): string | null {
  for (const rd of repoDigests) {
    const p = parseImageRef(rd);
    if (p?.digest && p.registry === ref.registry && p.repository === ref.repository) return p.digest;
  }
  return null;
}

/**
 * The registry host of the REGISTRY_URL setting (`https://ghcr.io/owner` → `ghcr.io`), so
 * credentials are only ever sent to that host; null when unset.
 */
export function registryHostOf(url: string): string | null {
  const m = /^(?:https?:\/\/)?([^/]+)/.exec(url.trim());
  if (!m?.[1]) return null;
  const host = m[1].toLowerCase();
  return HUB_ALIASES.has(host) ? DOCKER_HUB : host;
}
