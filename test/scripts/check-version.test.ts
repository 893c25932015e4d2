import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { npmVersion, versionProblems } from '../../scripts/check-version.ts';

const DEV = '# Changelog\n\n## Unreleased\n\n### Added\n- x\n';

describe('the version check', () => {
  test('the npm spelling follows VERSION', () => {
    assert.equal(npmVersion('v0.1.00-beta'), '0.1.0-beta');
    assert.equal(npmVersion('v1.0.07'), '1.0.7');
    assert.equal(npmVersion('v0.9.90'), '0.9.90');
    for (const bad of ['0.1.00', 'v0.1.0', 'v0.1.91', 'v0.10.00', 'v0.1.00-rc1']) assert.equal(npmVersion(bad), null, bad);
  });

  test('agreeing files pass; a package.json version that does not follow VERSION fails naming the fix', () => {
    assert.deepEqual(versionProblems({ version: 'v0.1.00-beta\n', packageVersion: '0.1.0-beta', changelog: DEV }), []);
    const p = versionProblems({ version: 'v0.1.00-beta', packageVersion: '0.1.0', changelog: DEV });
    assert.equal(p.length, 1);
    assert.match(p[0] ?? '', /"version": "0\.1\.0-beta"/);
  });

  test('the changelog head: Unreleased on the development branch, the version section for a release', () => {
    assert.match(versionProblems({ version: 'v0.1.00-beta', packageVersion: '0.1.0-beta', changelog: '## v0.1.00\n' })[0] ?? '', /## Unreleased/);
    assert.match(versionProblems({ version: 'v0.1.00', packageVersion: '0.1.0', changelog: DEV })[0] ?? '', /## v0\.1\.00/);
    assert.deepEqual(versionProblems({ version: 'v0.1.00', packageVersion: '0.1.0', changelog: '# C\n\n## v0.1.00 (2026-11-25)\n' }), []);
    assert.match(versionProblems({ version: 'v0.1', packageVersion: '0.1.0', changelog: DEV })[0] ?? '', /not of the form/);
  });

  test('the script fails on a disagreeing folder and passes on the repository itself', () => {
    const run = (dir?: string) => spawnSync(process.execPath, ['--import', 'tsx', 'scripts/check-version.ts', ...(dir ? [dir] : [])], { encoding: 'utf8' });
    const dir = mkdtempSync(join(tmpdir(), 'kade-version-'));
    try {
      writeFileSync(join(dir, 'VERSION'), 'v0.1.00-beta\n');
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ version: '0.1.0' }));
      writeFileSync(join(dir, 'CHANGELOG.md'), DEV);
      const bad = run(dir);
      assert.equal(bad.status, 1, bad.stderr);
      assert.match(bad.stderr, /package\.json has version '0\.1\.0'/);
      const ok = run();
      assert.equal(ok.status, 0, ok.stderr);
      assert.equal(JSON.parse(readFileSync('package.json', 'utf8')).version, npmVersion(readFileSync('VERSION', 'utf8').trim()));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
