// `npm run check` step: VERSION is the single source of Kade's version (SPEC Versioning).
// Fails when VERSION does not follow the format, package.json's version does not follow
// VERSION, or CHANGELOG.md's head does not follow the release rule.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** v<major>.<minor>.<two digits>, optionally -beta on the development branch. */
const VERSION = /^v(\d+)\.(\d)\.(\d{2})(-beta)?$/;

/** The npm (semver) spelling of a VERSION: v0.1.00-beta → 0.1.0-beta; null when VERSION is malformed. */
export function npmVersion(version: string): string | null {
  const m = VERSION.exec(version);
  if (!m || Number(m[3]) > 90) return null;
  return `${Number(m[1])}.${Number(m[2])}.${Number(m[3])}${m[4] ?? ''}`;
}

/** The first `## ` heading of the changelog, without the hashes; null when there is none. */
function changelogHead(changelog: string): string | null {
  const line = changelog.split('\n').find((l) => l.startsWith('## '));
  return line ? line.slice(3).trim() : null;
}

/** Every disagreement between VERSION, package.json and CHANGELOG.md, as sentences; empty when they agree. */
export function versionProblems(input: { version: string; packageVersion: unknown; changelog: string }): string[] {
  const version = input.version.trim();
  const npm = npmVersion(version);
  if (!npm) return [`VERSION '${version}' is not of the form v<major>.<minor>.<00–90>, optionally with -beta (SPEC Versioning)`];
  const problems: string[] = [];
  if (input.packageVersion !== npm) {
    problems.push(`package.json has version '${String(input.packageVersion)}' but VERSION ${version} means '${npm}': set "version": "${npm}"`);
  }
  const head = changelogHead(input.changelog);
  const beta = version.endsWith('-beta');
  if (beta && head !== 'Unreleased') {
    problems.push(`CHANGELOG.md must start with '## Unreleased' on the development branch (VERSION ${version}), not '## ${head ?? ''}'`);
  }
  if (!beta && !(head === version || head?.startsWith(`${version} `))) {
    problems.push(`CHANGELOG.md must start with the section '## ${version}' for the release ${version}, not '## ${head ?? ''}'`);
  }
  return problems;
}

function main(root: string): number {
  const read = (f: string) => readFileSync(join(root, f), 'utf8');
  const problems = versionProblems({
    version: read('VERSION'),
    packageVersion: (JSON.parse(read('package.json')) as { version?: unknown }).version,
    changelog: read('CHANGELOG.md'),
  });
  for (const p of problems) console.error(`version check: ${p}`);
  return problems.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv[2] ?? resolve(fileURLToPath(new URL('..', import.meta.url))));
}
