// `npm run release -- [--dry-run] [--root DIR]`: cuts a release on the development branch (SPEC
// Versioning). VERSION loses its -beta, package.json and package-lock.json follow, the changelog's
// `## Unreleased` becomes `## vX.Y.ZZ (date)`; committed and tagged. Then the branch moves on to the
// next version with -beta and a new, empty `## Unreleased`, committed too. Refused when the
// Unreleased section is missing or empty, when VERSION is not a -beta version, when one of the four
// files has uncommitted changes or when the tag exists. --dry-run prints the plan and changes nothing.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { npmVersion, versionProblems } from './check-version.ts';

const FILES = ['VERSION', 'package.json', 'package-lock.json', 'CHANGELOG.md'] as const;
const VERSION = /^v(\d+)\.(\d)\.(\d{2})(-beta)?$/;

export class ReleaseRefused extends Error {}

/** The version after `version` (without -beta): +0.01, and after .90 the next minor; after 0.9.90, 1.0.00. */
export function nextVersion(version: string): string {
  const m = VERSION.exec(version);
  if (!m || m[4] || Number(m[3]) > 90) throw new ReleaseRefused(`'${version}' is not a release version v<major>.<minor>.<00–90>`);
  let [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (patch < 90) patch += 1;
  else if (minor < 9) [minor, patch] = [minor + 1, 0];
  else [major, minor, patch] = [major + 1, 0, 0];
  return `v${major}.${minor}.${String(patch).padStart(2, '0')}`;
}

interface Section {
  title: string;
  lines: string[];
}

/** The changelog's lines before the first `## ` heading, then one section per heading. */
function sections(changelog: string): { head: string[]; sections: Section[] } {
  const lines = changelog.split('\n');
  const first = lines.findIndex((l) => l.startsWith('## '));
  if (first < 0) return { head: lines, sections: [] };
  const out: Section[] = [];
  for (const line of lines.slice(first)) {
    if (line.startsWith('## ')) out.push({ title: line.slice(3).trim(), lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return { head: lines.slice(0, first), sections: out };
}

function render(head: string[], list: Section[]): string {
  return [...head, ...list.flatMap((s) => [`## ${s.title}`, ...s.lines])].join('\n');
}

/** A section counts as empty when it holds nothing but blank lines and sub-headings. */
function isEmpty(lines: string[]): boolean {
  return lines.every((l) => l.trim() === '' || /^#{3,}\s/.test(l));
}

export interface Versioned {
  version: string;
  changelog: string;
}

export interface ReleasePlan {
  release: Versioned;
  next: Versioned;
}

/** What the release and the development version after it look like; refuses what SPEC forbids. */
export function planRelease(current: Versioned, date: string): ReleasePlan {
  const version = current.version.trim();
  const m = VERSION.exec(version);
  if (!m || !npmVersion(version)) throw new ReleaseRefused(`VERSION '${version}' is not of the form v<major>.<minor>.<00–90>-beta`);
  if (!m[4]) throw new ReleaseRefused(`VERSION ${version} is a release already; the development branch carries -beta`);
  const release = version.slice(0, -'-beta'.length);
  const parsed = sections(current.changelog);
  const top = parsed.sections[0];
  if (top?.title !== 'Unreleased') {
    throw new ReleaseRefused(`CHANGELOG.md has no '## Unreleased' section at its head, so ${release} has no changelog section`);
  }
  if (isEmpty(top.lines)) throw new ReleaseRefused(`the '## Unreleased' section of CHANGELOG.md is empty: write what ${release} changes first`);
  const released = [{ title: `${release} (${date})`, lines: top.lines }, ...parsed.sections.slice(1)];
  return {
    release: { version: release, changelog: render(parsed.head, released) },
    next: { version: `${nextVersion(release)}-beta`, changelog: render(parsed.head, [{ title: 'Unreleased', lines: [''] }, ...released]) },
  };
}

/** package.json or package-lock.json with its version(s) set, written back in npm's layout. */
export function withPackageVersion(json: string, version: string): string {
  const data = JSON.parse(json) as { version?: string; packages?: Record<string, { version?: string }> };
  data.version = version;
  const root = data.packages?.[''];
  if (root) root.version = version;
  return `${JSON.stringify(data, null, 2)}\n`;
}

function git(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function write(root: string, v: Versioned): void {
  const npm = npmVersion(v.version);
  if (!npm) throw new ReleaseRefused(`internal: '${v.version}' has no npm spelling`);
  const read = (f: string) => readFileSync(join(root, f), 'utf8');
  writeFileSync(join(root, 'VERSION'), `${v.version}\n`);
  writeFileSync(join(root, 'package.json'), withPackageVersion(read('package.json'), npm));
  writeFileSync(join(root, 'package-lock.json'), withPackageVersion(read('package-lock.json'), npm));
  writeFileSync(join(root, 'CHANGELOG.md'), v.changelog);
  const problems = versionProblems({
    version: v.version,
    packageVersion: (JSON.parse(read('package.json')) as { version?: unknown }).version,
    changelog: v.changelog,
  });
  if (problems.length > 0) throw new ReleaseRefused(`internal: the written files disagree: ${problems.join('; ')}`);
}

function commit(root: string, message: string): void {
  git(root, ['add', '--', ...FILES]);
  git(root, ['commit', '-q', '-m', message, '--', ...FILES]);
}

/** Runs the release in `root`; returns the lines it prints. */
export function release(root: string, opts: { dryRun: boolean; date?: string }): string[] {
  const read = (f: string) => readFileSync(join(root, f), 'utf8');
  const date = opts.date ?? new Date().toISOString().slice(0, 10);
  const plan = planRelease({ version: read('VERSION'), changelog: read('CHANGELOG.md') }, date);
  const tag = plan.release.version;
  const lines = [
    `release ${tag} (${date}): VERSION, package.json, package-lock.json, CHANGELOG.md ('## Unreleased' becomes '## ${tag} (${date})'); commit and tag ${tag}`,
    `then ${plan.next.version}: VERSION, package.json, package-lock.json, a new empty '## Unreleased'; commit`,
  ];
  if (opts.dryRun) return ['dry run, nothing changed:', ...lines];
  const dirty = git(root, ['status', '--porcelain', '--', ...FILES]);
  if (dirty) throw new ReleaseRefused(`uncommitted changes in the release files; commit or drop them first:\n${dirty}`);
  if (git(root, ['tag', '--list', tag])) throw new ReleaseRefused(`the tag ${tag} exists already`);
  write(root, plan.release);
  commit(root, `Release ${tag}`);
  git(root, ['tag', '-a', tag, '-m', `Kade ${tag}`]);
  write(root, plan.next);
  commit(root, `Development of ${plan.next.version.replace(/-beta$/, '')} starts: ${plan.next.version}`);
  return [...lines, `released ${tag} (tag ${tag}); the branch is at ${plan.next.version}`];
}

function main(argv: string[]): number {
  const dryRun = argv.includes('--dry-run');
  const rootAt = argv.indexOf('--root');
  const unknown = argv.filter((a, i) => a !== '--dry-run' && a !== '--root' && !(rootAt >= 0 && i === rootAt + 1));
  if (unknown.length > 0 || (rootAt >= 0 && !argv[rootAt + 1])) {
    console.error(`usage: npm run release -- [--dry-run] [--root DIR]${unknown.length ? ` (unknown: ${unknown.join(' ')})` : ''}`);
    return 2;
  }
  const root = rootAt >= 0 ? resolve(argv[rootAt + 1] as string) : resolve(fileURLToPath(new URL('..', import.meta.url)));
  try {
    for (const line of release(root, { dryRun })) console.log(line);
    return 0;
  } catch (err) {
    if (!(err instanceof ReleaseRefused)) throw err;
    console.error(`release refused: ${err.message}`);
    return 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
