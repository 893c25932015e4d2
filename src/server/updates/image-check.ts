import { type ImageRef, localDigestFor, parseImageRef, refKey } from './image-ref.ts';
import type { KeyedLimiter } from './limiter.ts';
import type { RemoteDigest } from './registry-client.ts';
import { createTtlCache, spreadMs, WEEK_MS } from './result-cache.ts';

export type UpdateState = 'update' | 'current' | 'unknown';
/** Why a check came out as it did; `registry` and `not_pulled` are the failures that leave the state open. */
export type CheckReason = 'compared' | 'local_build' | 'pinned' | 'not_pulled' | 'registry' | 'invalid_ref';

export interface ImageCheck {
  image: string;
  state: UpdateState;
  reason: CheckReason;
  /** Human-readable detail of a failure (what the registry said). */
  detail: string | null;
  /** True when this result is kept in the week cache (never for a failure). */
  cached: boolean;
}

/** The local side: the `RepoDigests` of an image (by id or reference); null when the engine has no such image. */
export type LocalDigests = (image: string) => Promise<string[] | null>;

interface Cached {
  state: 'update' | 'current';
  local: string;
}

export interface ImageCheckerDeps {
  local: LocalDigests;
  remote: (ref: ImageRef) => Promise<RemoteDigest>;
  limiter: KeyedLimiter;
  now: () => number;
  /** Spread of the week TTL in hours either way; 12 unless a test says otherwise. */
  spreadHours?: number;
}

/**
 * Compares the digest of a tag in its registry with the one the engine recorded when it pulled
 * the image. Successful answers are cached a week (spread per image), keyed by name plus tag and
 * valid only while the local digest is unchanged; failures are never cached.
 */
export function createImageChecker(d: ImageCheckerDeps) {
  const hours = d.spreadHours ?? 12;
  const cache = createTtlCache<Cached>({ now: d.now, ttl: (key) => WEEK_MS + spreadMs(key, hours) });

  /**
   * `image` is the reference as the container was created with; `localImage` the image the
   * container runs (its id), so a pulled but not yet recreated container still shows its update.
   * `force` asks the registry even when a cached answer exists.
   */
  async function check(image: string, opts: { localImage?: string; force?: boolean } = {}): Promise<ImageCheck> {
    const out = (state: UpdateState, reason: CheckReason, detail: string | null = null, cached = false): ImageCheck => ({
      image,
      state,
      reason,
      detail,
      cached,
    });
    const ref = parseImageRef(image);
    if (!ref) return out('unknown', 'invalid_ref');
    if (ref.digest) return out('current', 'pinned');
    const digests = await d.local(opts.localImage ?? image);
    if (digests === null) return out('unknown', 'not_pulled');
    // No digest for this repository: built (or tagged) locally, so no registry has it to compare with.
    const local = localDigestFor(ref, digests);
    if (!local) return out('unknown', 'local_build');
    const key = refKey(ref);
    const hit = opts.force ? undefined : cache.get(key);
    if (hit && hit.local === local) return out(hit.state, 'compared', null, true);
    const remote = await d.limiter.run(ref.registry, () => d.remote(ref));
    if (!remote.ok) {
      cache.delete(key);
      return out('unknown', 'registry', remote.reason);
    }
    const state = remote.digest === local ? 'current' : 'update';
    cache.set(key, { state, local });
    return out(state, 'compared', null, true);
  }

  return {
    check,
    /** Drops the cached answers of these references (after an update pulled new images). */
    forget(images: readonly string[]): void {
      for (const i of images) {
        const ref = parseImageRef(i);
        if (ref) cache.delete(refKey(ref));
      }
    },
    cachedKeys: (): number => cache.size,
  };
}

export type ImageChecker = ReturnType<typeof createImageChecker>;
