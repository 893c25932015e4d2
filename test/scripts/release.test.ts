import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { versionProblems } from '../../scripts/check-version.ts';
import { nextVersion, planRelease, ReleaseRefused } from '../../scripts/release.ts';

const CHANGELOG = '# Changelog\n\nIntro line.\n\n## Unreleased\n\n### Added\n- the installer\n\n## v0.0.90 (2026-01-02)\n\n- older\n';
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A git repository holding copies of the repository's release files, VERSION and CHANGELOG.md as given. */
function tempRepo(version: string, changelog: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kade-release-'));
  dirs.push(dir);
  copyFileSync('package.json', join(dir, 'package.json'));
  copyFileSync('package-lock.json', join(dir, 'package-lock.json'));
  writeFileSync(join(dir, 'VERSION'), `${version}\n`);
  writeFileSync(join(dir, 'CHANGELOG.md'), changelog);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'test@kade.invalid');
  git('config', 'user.name', 'Kade test');
  git('add', '.');
  git('commit', '-q', '-m', 'start');
  return dir;
}

function runRelease(dir: string, ...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/release.ts', '--root', dir, ...args], { encoding: 'utf8' });
}

const read = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');
const gitOut = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

describe('the release script', () => {
  test('versions advance by 0.01 and roll over at .90', () => {
    assert.equal(nextVersion('v0.1.00'), 'v0.1.01');
    assert.equal(nextVersion('v0.1.09'), 'v0.1.10');
    assert.equal(nextVersion('v0.1.89'), 'v0.1.90');
    assert.equal(nextVersion('v0.1.90'), 'v0.2.00');
    assert.equal(nextVersion('v0.9.90'), 'v1.0.00');
    assert.equal(nextVersion('v1.9.90'), 'v2.0.00');
    for (const bad of ['v0.1.00-beta', 'v0.1.91', '0.1.00', 'v0.10.00']) assert.throws(() => nextVersion(bad), ReleaseRefused, bad);
  });

  test('the plan: the release drops -beta and names its section, the branch moves to the next -beta with an empty Unreleased', () => {
    const plan = planRelease({ version: 'v0.1.90-beta\n', changelog: CHANGELOG }, '2026-11-27');
    assert.equal(plan.release.version, 'v0.1.90');
    assert.equal(
      plan.release.changelog,
      '# Changelog\n\nIntro line.\n\n## v0.1.90 (2026-11-27)\n\n### Added\n- the installer\n\n## v0.0.90 (2026-01-02)\n\n- older\n',
    );
    assert.equal(plan.next.version, 'v0.2.00-beta');
    assert.equal(plan.next.changelog, plan.release.changelog.replace('## v0.1.90', '## Unreleased\n\n## v0.1.90'));
  });

  test('refused: no Unreleased section, an empty one (sub-headings only), a version that is not -beta', () => {
    const refusal = (version: string, changelog: string) => {
      try {
        planRelease({ version, changelog }, '2026-11-27');
      } catch (err) {
        assert.ok(err instanceof ReleaseRefused);
        return err.message;
      }
      assert.fail('the release was not refused');
    };
    assert.match(refusal('v0.1.00-beta', '# Changelog\n\n## v0.0.90\n- x\n'), /no '## Unreleased' section/);
    assert.match(refusal('v0.1.00-beta', '# Changelog\n'), /no '## Unreleased' section/);
    assert.match(refusal('v0.1.00-beta', '# Changelog\n\n## Unreleased\n\n### Added\n\n## v0.0.90\n- x\n'), /is empty/);
    assert.match(refusal('v0.1.00-beta', '# Changelog\n\n## Unreleased\n'), /is empty/);
    assert.match(refusal('v0.1.00', CHANGELOG), /a release already/);
    assert.match(refusal('v0.1.91-beta', CHANGELOG), /not of the form/);
  });

  test('a release in a repository: release commit with its tag, then the next development version; every step passes the version check', () => {
    const dir = tempRepo('v0.9.90-beta', CHANGELOG);
    const today = () => new Date().toISOString().slice(0, 10);
    const dayBefore = today();
    const r = runRelease(dir);
    assert.equal(r.status, 0, r.stderr);
    const days = [dayBefore, today()];
    // The tag holds the release.
    assert.equal(gitOut(dir, 'show', 'v0.9.90:VERSION'), 'v0.9.90');
    assert.equal(JSON.parse(gitOut(dir, 'show', 'v0.9.90:package.json')).version, '0.9.90');
    const lock = JSON.parse(gitOut(dir, 'show', 'v0.9.90:package-lock.json'));
    assert.equal(lock.version, '0.9.90');
    assert.equal(lock.packages[''].version, '0.9.90');
    const releasedLog = gitOut(dir, 'show', 'v0.9.90:CHANGELOG.md');
    const date = /^## v0\.9\.90 \((\d{4}-\d{2}-\d{2})\)$/m.exec(releasedLog)?.[1];
    assert.ok(date && days.includes(date), releasedLog);
    assert.doesNotMatch(releasedLog, /Unreleased/);
    assert.deepEqual(versionProblems({ version: 'v0.9.90', packageVersion: '0.9.90', changelog: releasedLog }), []);
    // The branch moved on.
    assert.equal(read(dir, 'VERSION'), 'v1.0.00-beta\n');
    assert.equal(JSON.parse(read(dir, 'package.json')).version, '1.0.0-beta');
    assert.equal(JSON.parse(read(dir, 'package-lock.json')).packages[''].version, '1.0.0-beta');
    const devLog = read(dir, 'CHANGELOG.md');
    assert.ok(devLog.startsWith('# Changelog\n\nIntro line.\n\n## Unreleased\n\n## v0.9.90 ('), devLog);
    assert.deepEqual(versionProblems({ version: 'v1.0.00-beta', packageVersion: '1.0.0-beta', changelog: devLog }), []);
    assert.equal(gitOut(dir, 'status', '--porcelain'), '');
    assert.deepEqual(gitOut(dir, 'log', '--format=%s').split('\n').slice(0, 2), ['Development of v1.0.00 starts: v1.0.00-beta', 'Release v0.9.90']);
    // The files not named in the release are untouched apart from the version lines.
    const before = JSON.parse(readFileSync('package.json', 'utf8'));
    assert.deepEqual({ ...JSON.parse(read(dir, 'package.json')), version: before.version }, before);

    // The next release is refused until the new Unreleased section says something.
    const again = runRelease(dir);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /release refused: the '## Unreleased' section of CHANGELOG\.md is empty/);
    assert.equal(read(dir, 'VERSION'), 'v1.0.00-beta\n');
  });

  test('--dry-run prints the plan and changes nothing; uncommitted release files are refused', () => {
    const dir = tempRepo('v0.1.00-beta', CHANGELOG);
    const dry = runRelease(dir, '--dry-run');
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /release v0\.1\.00 .*commit and tag v0\.1\.00/);
    assert.match(dry.stdout, /then v0\.1\.01-beta/);
    assert.equal(read(dir, 'VERSION'), 'v0.1.00-beta\n');
    assert.equal(read(dir, 'CHANGELOG.md'), CHANGELOG);
    assert.equal(gitOut(dir, 'tag', '--list'), '');

    writeFileSync(join(dir, 'CHANGELOG.md'), `${CHANGELOG}\n- more\n`);
    const dirty = runRelease(dir);
    assert.equal(dirty.status, 1);
    assert.match(dirty.stderr, /uncommitted changes in the release files/);
    assert.equal(read(dir, 'VERSION'), 'v0.1.00-beta\n');
    assert.equal(gitOut(dir, 'tag', '--list'), '');
  });
});
