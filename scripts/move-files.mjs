// Moves source files and rewrites every relative import that points at them or out of them.
// Usage: node scripts/move-files.mjs old=new [old=new ...]   (paths from the repo root; tests beside them are not implied)
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

const root = process.cwd();
const moves = new Map(process.argv.slice(2).map((a) => a.split('=').map((p) => resolve(root, p))));
const files = execSync('git ls-files -- "*.ts" "*.tsx" "*.mjs" "*.js"', { encoding: 'utf8' })
  .trim()
  .split('\n')
  .map((f) => resolve(root, f));
const SPEC = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bmock\.module\(\s*|new URL\(\s*)(['"])(\.{1,2}\/[^'"]+)\2/g;
const where = (p) => moves.get(p) ?? p;
for (const file of files) {
  if (!existsSync(file)) continue;
  const text = readFileSync(file, 'utf8');
  const newFile = where(file);
  const out = text.replace(SPEC, (all, pre, q, spec) => {
    const target = resolve(dirname(file), spec);
    const newTarget = where(target);
    if (newTarget === target && newFile === file) return all;
    let rel = relative(dirname(newFile), newTarget);
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${pre}${q}${rel}${q}`;
  });
  if (out !== text) writeFileSync(file, out);
}
for (const [from, to] of moves) {
  mkdirSync(dirname(to), { recursive: true });
  execSync(`git mv ${JSON.stringify(relative(root, from))} ${JSON.stringify(relative(root, to))}`);
}
