/** npm run templates:check -- <folder or templates file>: see check.ts. Exit 1 when any app fails. */
import { existsSync } from 'node:fs';
import { checkPath } from './check.ts';

const path = process.argv[2];
if (!path || !existsSync(path)) {
  console.error('usage: npm run templates:check -- <folder of apps | app folder | Portainer templates file>');
  process.exit(2);
}
const r = await checkPath(path);
for (const line of r.failures) console.log(line);
console.log(
  `imported ${r.imported}/${r.found}, valid compose ${r.valid}/${r.found}${r.needsInput ? `, needs input ${r.needsInput}` : ''}${r.withPowers ? `, with powers over the host ${r.withPowers}` : ''}`,
);
process.exit(r.failures.length > 0 ? 1 : 0);
