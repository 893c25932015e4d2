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
