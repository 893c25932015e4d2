#!/usr/bin/env node
// `npm start`: builds what is missing or older than the sources, then runs the server in this process.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const newest = (dir) => {
  let max = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    max = Math.max(max, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return max;
};
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

// tsc leaves unchanged outputs alone, so a stamp written after each build tells when it last ran.
const STAMP = 'dist/.built';
const built = Math.min(mtime(STAMP), mtime('dist/server/main.js'), mtime('dist/web/index.html'));
if (built === 0 || built < newest('src')) {
  process.stderr.write('kade: building (tsc + vite)…\n');
  const r = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}
await import(new URL('../dist/server/main.js', import.meta.url).href);
