/** Kade versions: v<major>.<minor>.<patch two digits>, optionally with a pre-release suffix (-beta). */
const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

export interface ParsedVersion {
  parts: [number, number, number];
  pre: string | null;
}

export function parseVersion(v: string): ParsedVersion | null {
  const m = VERSION.exec(v.trim());
  if (!m) return null;
  return { parts: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ?? null };
}

/** Negative when a < b. A pre-release ranks below its own release. */
export function compareVersions(a: ParsedVersion, b: ParsedVersion): number {
  for (let i = 0; i < 3; i++) {
    const d = (a.parts[i] ?? 0) - (b.parts[i] ?? 0);
    if (d !== 0) return d;
  }
  if (a.pre === b.pre) return 0;
  if (a.pre === null) return 1;
  if (b.pre === null) return -1;
  return a.pre < b.pre ? -1 : 1;
}

/** True when `cache` is older than `running`; unknown versions are never called outdated. */
export function isOutdated(cache: string | null, running: string): boolean {
  const a = cache ? parseVersion(cache) : null;
  const b = parseVersion(running);
  return a !== null && b !== null && compareVersions(a, b) < 0;
}

/** Self-update channels: `stable` offers releases only, `beta` releases and pre-releases. */
export type UpdateChannel = 'stable' | 'beta';

/**
 * The newest tag of `tags` on the channel (tags that are not versions are ignored), with its
 * original spelling; null when there is none. Whether it is newer than the running version is
 * the caller's comparison.
 */
export function newestOnChannel(tags: readonly string[], channel: UpdateChannel): string | null {
  let best: { tag: string; v: ParsedVersion } | null = null;
  for (const tag of tags) {
    const v = parseVersion(tag);
    if (!v || (channel === 'stable' && v.pre !== null)) continue;
    if (!best || compareVersions(v, best.v) > 0) best = { tag, v };
  }
  return best?.tag ?? null;
}

/** Whether `candidate` is a newer version than `running`; false when either is not a version. */
export function isNewer(candidate: string | null, running: string): boolean {
  const a = candidate ? parseVersion(candidate) : null;
  const b = parseVersion(running);
  return a !== null && b !== null && compareVersions(a, b) > 0;
}
