import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeFileAtomic, writeFilesAtomic } from './fs-atomic.ts';

test('several files change all together or not at all: a failing write leaves every file as it was and no temp file behind', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-atomic-'));
  writeFileSync(join(dir, 'a'), 'old a');
  writeFileSync(join(dir, 'b'), 'old b');
  assert.throws(() =>
    writeFilesAtomic([
      { path: join(dir, 'a'), content: 'new a', mode: 0o644 },
      { path: join(dir, 'missing', 'b'), content: 'new b', mode: 0o600 },
    ]),
  );
  assert.equal(readFileSync(join(dir, 'a'), 'utf8'), 'old a');
  assert.deepEqual(readdirSync(dir).sort(), ['a', 'b']);

  const renamed: string[] = [];
  writeFilesAtomic(
    [
      { path: join(dir, 'a'), content: 'new a', mode: 0o644 },
      { path: join(dir, 'b'), content: Buffer.from('new b'), mode: 0o600 },
    ],
    { afterRename: (p) => renamed.push(p) },
  );
  assert.equal(readFileSync(join(dir, 'a'), 'utf8'), 'new a');
  assert.equal(readFileSync(join(dir, 'b'), 'utf8'), 'new b');
  assert.deepEqual(renamed, [join(dir, 'a'), join(dir, 'b')]);
  rmSync(dir, { recursive: true, force: true });
});

test('a large content is written whole, with the mode asked for', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-atomic-'));
  const big = 'x'.repeat(5 * 1024 * 1024);
  writeFileAtomic(join(dir, 'big'), big, 0o600);
  assert.equal(readFileSync(join(dir, 'big'), 'utf8').length, big.length);
  assert.equal(statSync(join(dir, 'big')).mode & 0o777, 0o600);
  rmSync(dir, { recursive: true, force: true });
});
