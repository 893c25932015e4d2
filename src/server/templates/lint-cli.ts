import { lintRepo } from './lint.ts';

// `npm run templates:lint -- <apps folder> [...]`: prints findings, exits 1 on any error.
const dirs = process.argv.slice(2).filter((a) => a !== '--');
if (dirs.length === 0) {
  process.stderr.write('usage: npm run templates:lint -- <folder with app templates> [...]\n');
  process.exit(2);
}
let errors = 0;
for (const dir of dirs) {
  const { apps, findings } = lintRepo(dir);
  for (const f of findings) process.stdout.write(`${f.level === 'error' ? 'error  ' : 'warning'} ${dir}/${f.app}: [${f.rule}] ${f.message}\n`);
  const e = findings.filter((f) => f.level === 'error').length;
  errors += e;
  process.stdout.write(`${dir}: ${apps} apps, ${e} errors, ${findings.length - e} warnings\n`);
}
process.exit(errors > 0 ? 1 : 0);
