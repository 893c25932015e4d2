// Prints how long reading the app index of a template folder takes (cold, then warm file cache).
import { performance } from 'node:perf_hooks';
import { indexRepo } from '../src/server/catalogue/app-index.ts';

const dir = process.argv[2] ?? 'examples/apps';
for (const run of ['first', 'second']) {
  const t0 = performance.now();
  const idx = indexRepo('examples', dir);
  const ms = performance.now() - t0;
  process.stdout.write(`${run}: ${idx.apps.length} apps, ${idx.skipped.length} skipped, ${ms.toFixed(1)} ms\n`);
}
