import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkPath } from './check.ts';

/** The real CasaOS store (Apache-2.0; its SOURCE.md says from where), kept in the repo so a fresh clone has it. */
const CORPUS = join(import.meta.dirname, '../../../../test/fixtures/corpus/casaos');

test('the CasaOS store imports, and at least 95% of the apps Kade imports pass the compose CLI’s check', { timeout: 15 * 60_000 }, async () => {
  assert.ok(existsSync(join(CORPUS, 'Apps')), `the CasaOS corpus is expected at ${CORPUS}`);
  const r = await checkPath(CORPUS, { parallel: 2 });
  console.log(r.failures.join('\n'));
  console.log(`imported ${r.imported}/${r.found}, valid compose ${r.valid}/${r.found}`);
  assert.ok(r.found >= 150, `found ${r.found} apps`);
  // Refused are only apps Kade's bind policy never allows (the engine socket, /etc, /dev), each with its reason.
  const refused = r.failures.filter((l) => l.includes(': not imported: '));
  for (const l of refused) assert.match(l, /binds the (engine socket|host path) /);
  assert.ok(r.imported >= 0.95 * r.found, `imported ${r.imported}/${r.found}`);
  assert.ok(r.valid >= 0.95 * r.imported, `valid compose ${r.valid} of ${r.imported} imported`);
});
