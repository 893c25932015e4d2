import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../../../..');

test('npm run templates:check prints one line per failure and the totals last; exit 1 when an app fails', () => {
  // The Runtipi fixture store: its apps one folder down (apps/), one app Kade cannot map.
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/catalogue/import/check-cli.ts', 'test/fixtures/import/runtipi'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 1, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), [
    "odd-tipi: not imported: form field ODD_COLOUR has the type 'colour-wheel', which Kade has no field for",
    'imported 2/3, valid compose 2/3',
  ]);
  const one = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/catalogue/import/check-cli.ts', 'test/fixtures/import/runtipi/apps/echo-tipi'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(one.status, 0, one.stderr);
  assert.equal(one.stdout.trim(), 'imported 1/1, valid compose 1/1');
});
