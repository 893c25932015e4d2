// `npm run check`: every static check, side by side (tsc and typed eslint each build a TypeScript program,
// so together they take about as long as the slower one on two cores). Each check's output is printed
// whole when it ends, and the run fails when any check does.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const bin = (name) => resolve(root, 'node_modules/.bin', name);

const CHECKS = [
  ['version', bin('tsx'), ['scripts/check-version.ts']],
  ['types', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  ['eslint', bin('eslint'), ['--max-warnings', '0', 'src', 'test']],
  ['biome', bin('biome'), ['check', '--error-on-warnings', '.']],
  ['cycles', bin('dpdm'), ['--no-warning', '--no-tree', '--exit-code', 'circular:1', '-T', 'src/server/main.ts', 'src/web/main.tsx']],
  ['layers', bin('tsx'), ['scripts/check-layers.ts']],
  ['templates', bin('tsx'), ['src/server/templates/lint-cli.ts', 'examples/apps']],
];

function check([name, cmd, args]) {
  const start = Date.now();
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (err) => done({ name, code: 127, out: `cannot run ${cmd}: ${err.message}`, start }));
    child.on('close', (code) => done({ name, code: code ?? 1, out, start }));
  }).then((r) => {
    const seconds = ((Date.now() - r.start) / 1000).toFixed(1);
    console.log(`-- ${r.name}: ${r.code === 0 ? 'ok' : `failed (exit ${r.code})`} in ${seconds}s`);
    if (r.code !== 0 && r.out.trim()) console.log(r.out.trimEnd());
    return r.code;
  });
}

const codes = await Promise.all(CHECKS.map(check));
process.exit(codes.find((c) => c !== 0) ?? 0);
