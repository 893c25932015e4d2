import { errorMessage } from '../core/errors.ts';
import type { Engine } from '../engine/engine.ts';
import { DOCKER_HUB, type ImageRef, localDigestFor, parseImageRef } from './image-ref.ts';
import { createRegistryClient, MAX_TAGS, type RegistryCredentials, type RemoteTags } from './registry-client.ts';
import { createTtlCache } from './result-cache.ts';

/** The tags a service's image can be set to; the body of the service tags answer (without `service`). */
export interface ImageTagList {
  image: string;
  /** The tag the reference names (`latest` when it names none); null for a digest without a tag or an invalid reference. */
  current: string | null;
  tags: string[];
  /** `local` when the registry could not be asked and the tags are the ones this engine has. */
  source: 'registry' | 'local';
  /** Why the registry was not asked or did not answer (or that its list was cut short). */
  note: string | null;
}

export interface ImageTagsDeps {
  engine: Pick<Engine, 'inspectImage' | 'listImageTags'>;
  credentials: () => RegistryCredentials | null;
  fetch?: typeof fetch;
  now?: () => number;
  /** Per registry request; a form is waiting, so shorter than the update checks' default. */
  timeoutMs?: number;
  /** Asks the registry for pages of this size (`?n=`); unset lets the registry choose. */
  pageSize?: number;
  /** The most tags listed; MAX_TAGS unless a test says otherwise. */
  maxTags?: number;
}

export const TAGS_TTL_MS = 10 * 60_000;

const VERSION = /^[vV]?(\d+(?:\.\d+)*)([-_+~].*)?$/;

/** Digit strings of any length (dates, build numbers) compared as numbers without overflow. */
function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
}

/**
 * Order of two version-like tags: newer numbers first; a tag whose numbers are a prefix of the
 * other's comes first (`16` before `16.2` before `16.1`), then no suffix before suffixes A-Z.
 */
function compareVersions(a: RegExpExecArray, b: RegExpExecArray): number {
  const pa = (a[1] ?? '').split('.');
  const pb = (b[1] ?? '').split('.');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = compareDigits(pb[i] ?? '', pa[i] ?? '');
    if (c !== 0) return c;
  }
  if (pa.length !== pb.length) return pa.length - pb.length;
  const sa = a[2] ?? '';
  const sb = b[2] ?? '';
  if (sa === '' || sb === '') return sa === sb ? 0 : sa === '' ? -1 : 1;
  return sa.localeCompare(sb, 'en', { numeric: true });
}

/** `latest` first, then version-like tags newest first, then every other tag alphabetically; duplicates dropped. */
export function sortTags(tags: Iterable<string>): string[] {
  const unique = [...new Set(tags)];
  const versions: { tag: string; m: RegExpExecArray }[] = [];
  const others: string[] = [];
  for (const tag of unique) {
    if (tag === 'latest') continue;
    const m = VERSION.exec(tag);
    if (m) versions.push({ tag, m });
    else others.push(tag);
  }
  versions.sort((x, y) => compareVersions(x.m, y.m) || (x.tag < y.tag ? -1 : 1));
  others.sort((x, y) => x.localeCompare(y, 'en', { numeric: true }));
  return [...(unique.includes('latest') ? ['latest'] : []), ...versions.map((v) => v.tag), ...others];
}

/** The tag the reference names; `latest` when it names none, null when it pins a digest only. */
function currentTag(image: string, ref: ImageRef): string | null {
  const name = image.trim().split('@')[0] ?? '';
  const named = name.lastIndexOf(':') > name.lastIndexOf('/');
  return named || !ref.digest ? ref.tag : null;
}

/** The repository as the engine names it in `RepoTags` (`nginx`, not `docker.io/library/nginx`). */
const familiarName = (r: ImageRef) => (r.registry === DOCKER_HUB ? r.repository.replace(/^library\//, '') : `${r.registry}/${r.repository}`);

/**
 * The tags a service's image can be switched to: the registry's tag list (cached ten minutes per
 * repository, failures not cached), or the engine's own tags of that repository when the image
 * was built locally or the registry cannot be asked, with the reason in `note`.
 */
export function createImageTags(deps: ImageTagsDeps) {
  const registry = createRegistryClient({
    credentials: deps.credentials,
    timeoutMs: deps.timeoutMs ?? 8_000,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const cache = createTtlCache<RemoteTags & { ok: true }>({ now: deps.now ?? Date.now, ttl: () => TAGS_TTL_MS });
  // Two forms opened at once ask the registry once.
  const inFlight = new Map<string, Promise<RemoteTags>>();

  function remote(ref: ImageRef): Promise<RemoteTags> {
    const key = `${ref.registry}/${ref.repository}`;
    const hit = cache.get(key);
    if (hit) return Promise.resolve(hit);
    let p = inFlight.get(key);
    if (!p) {
      p = registry
        .listTags(ref, { max: deps.maxTags ?? MAX_TAGS, ...(deps.pageSize ? { pageSize: deps.pageSize } : {}) })
        .then((r) => {
          if (!r.ok) return r;
          const sorted = { ...r, tags: sortTags(r.tags) };
          cache.set(key, sorted);
          return sorted;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, p);
    }
    return p;
  }

  /** True when the engine has this image but no registry digest for its repository: built or tagged here. */
  async function builtLocally(image: string, ref: ImageRef): Promise<boolean> {
    try {
      const local = await deps.engine.inspectImage(image);
      return local !== null && localDigestFor(ref, local.repoDigests) === null;
    } catch {
      return false; // the engine's trouble: the registry can still answer
    }
  }

  async function localTags(ref: ImageRef, why: string): Promise<{ tags: string[]; note: string }> {
    try {
      return { tags: sortTags(await deps.engine.listImageTags(familiarName(ref))), note: `${why}; these are the tags this host has` };
    } catch (err) {
      return { tags: [], note: `${why}; the engine's own tags could not be read either: ${errorMessage(err)}` };
    }
  }

  return {
    async tags(image: string): Promise<ImageTagList> {
      const ref = parseImageRef(image);
      if (!ref) return { image, current: null, tags: [], source: 'local', note: `'${image}' is not a valid image reference` };
      const current = currentTag(image, ref);
      let why: string;
      if (await builtLocally(image, ref)) {
        why = 'the image was built or tagged on this host, not pulled from a registry';
      } else {
        const r = await remote(ref);
        if (r.ok) {
          const note = r.truncated ? `the registry lists more than ${r.tags.length} tags; these are the first it sent` : null;
          return { image, current, tags: r.tags, source: 'registry', note };
        }
        why = r.reason;
      }
      return { image, current, source: 'local', ...(await localTags(ref, why)) };
    },
  };
}

/** Named apart from the shared `ImageTags` schema, which adds `service`. */
export type ImageTagLookup = ReturnType<typeof createImageTags>;
