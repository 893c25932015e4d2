import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { requireEngine } from '../helpers/engine.ts';

// `npm run bench` keeps working (issue #18): a tiny fleet, one second per figure, the build the test run made.
const execFileP = promisify(execFile);

test('npm run bench runs end to end on a tiny fleet, writes every figure as JSON and removes its containers', async () => {
  await requireEngine();
  if (!existsSync('dist/server/main.js') || !existsSync('dist/web/index.html')) {
    throw new Error('dist is not built: run `npm run build` before this test');
  }
  const dir = mkdtempSync(join(tmpdir(), 'kade-bench-smoke-'));
  try {
    const out = join(dir, 'result.json');
    const { stdout } = await execFileP('npm', ['run', '--silent', 'bench', '--', '--apps', '3', '--containers', '1', '--quick', '--no-build', '--out', out], {
      timeout: 300_000,
      maxBuffer: 16 << 20,
    });
    assert.match(stdout, /targets:/);
    const result = JSON.parse(readFileSync(out, 'utf8')) as {
      fleets: {
        apps: number;
        containers: number;
        listed: number;
        coldStartMs: number;
        endpoints: Record<string, Record<string, { kade: { p50: number; rps: number }; raw: { p50: number } }>>;
      }[];
      screen: { totalKB: number };
      targets: { name: string; value: number | null; pass: boolean | null }[];
    };
    const fleet = result.fleets[0];
    assert.ok(fleet);
    assert.equal(fleet.apps, 3);
    assert.equal(fleet.containers, 3);
    assert.equal(fleet.listed, 3);
    assert.ok(fleet.coldStartMs > 0);
    for (const what of ['list', 'view']) {
      assert.deepEqual(Object.keys(fleet.endpoints[what] ?? {}).sort(), ['1', '64', '8'], what);
      for (const pair of Object.values(fleet.endpoints[what] ?? {})) {
        assert.ok(pair.kade.p50 > 0 && pair.kade.rps > 0 && pair.raw.p50 > 0, `${what}: ${JSON.stringify(pair)}`);
      }
    }
    assert.ok(result.screen.totalKB > 0);
    // Every target is printed; the two of the large fleet say they need --large instead of a figure.
    assert.equal(result.targets.length, 9, JSON.stringify(result.targets));
    const notRun = result.targets.filter((t) => t.pass === null);
    assert.deepEqual(
      notRun.map((t) => [/needs --large/.test(t.name), t.value]),
      [
        [true, null],
        [true, null],
      ],
    );
    for (const t of result.targets.filter((r) => r.pass !== null)) assert.equal(typeof t.value, 'number', t.name);
    assert.match(stdout, /needs --large\)\s+not run/);
    const left = (await execFileP('docker', ['ps', '-aq', '--filter', 'name=kadetest-bench-'])).stdout.trim();
    assert.equal(left, '', 'the bench removed its containers');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
