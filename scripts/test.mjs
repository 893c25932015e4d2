// `npm test`: static checks, build, then every test file in a fixed order (unit tests in
// src/ first, then test/helpers, test/engine, test/e2e, other test/ folders).
//
//   npm test                      everything
//   npm test -- test/engine       only files under that path (or whose path contains it)
//   npm test -- stacks --test-name-pattern=install
//                                 arguments starting with '-' go to `node --test`
//
// Env: KADE_TEST_NOCHECK=1 skips `npm run check`; KADE_TEST_NOBUILD=1 skips `npm run build`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const ORDER = ['src/', 'test/helpers/', 'test/engine/', 'test/e2e/', 'test/'];

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (relative(root, full).split(sep).join('/') !== 'test/fixtures') walk(full, out);
    } else if (entry.name.endsWith('.test.ts')) {
      out.push(relative(root, full).split(sep).join('/'));
    }
  }
  return out;
}

function rank(file) {
  const group = ORDER.findIndex((prefix) => file.startsWith(prefix));
  // Within src/, pure unit tests before *.int.test.ts.
  return group * 2 + (group === 0 && file.endsWith('.int.test.ts') ? 1 : 0);
}

function matches(file, filter) {
  const asPath = resolve(process.cwd(), filter);
  if (existsSync(asPath)) {
    const rel = relative(root, asPath).split(sep).join('/');
    return statSync(asPath).isDirectory() ? rel === '' || file.startsWith(`${rel}/`) : file === rel;
  }
  return file.includes(filter);
}

function run(cmd, args) {
  return new Promise((resolveRun) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit' });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', (err) => {
      console.error(`cannot run ${cmd}: ${err.message}`);
      resolveRun(127);
    });
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolveRun(code ?? 128 + (constants.signals[signal] ?? 0));
    });
  });
}

async function step(name, cmd, args) {
  const start = Date.now();
  console.log(`\n== ${name}: ${[cmd, ...args].join(' ')}`);
  const code = await run(cmd, args);
  console.log(`== ${name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${((Date.now() - start) / 1000).toFixed(1)}s`);
  return code;
}

const args = process.argv.slice(2).filter((a) => a !== '--');
const nodeFlags = args.filter((a) => a.startsWith('-'));
const filters = args.filter((a) => !a.startsWith('-'));

const files = [...walk(join(root, 'src')), ...walk(join(root, 'test'))]
  .filter((file) => filters.length === 0 || filters.some((f) => matches(file, f)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
if (files.length === 0) {
  console.error(`no test files match ${filters.length ? filters.join(' ') : 'src/**/*.test.ts or test/**/*.test.ts'}`);
  process.exit(1);
}

if (process.env.KADE_TEST_NOCHECK !== '1') {
  const code = await step('check', 'npm', ['run', '--silent', 'check']);
  if (code !== 0) process.exit(code);
}
if (process.env.KADE_TEST_NOBUILD !== '1') {
  const code = await step('build', 'npm', ['run', '--silent', 'build']);
  if (code !== 0) process.exit(code);
}
console.log(`\n== test files (${files.length}):\n${files.map((f) => `   ${f}`).join('\n')}`);
// A second reporter writes TAP to a file, so the run can close with one plain summary line.
const reportDir = mkdtempSync(join(tmpdir(), 'kade-test-'));
const tap = join(reportDir, 'report.tap');
const times = join(reportDir, 'file-times.tsv');
const code = await step('test', process.execPath, [
  '--import',
  'tsx',
  '--test',
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  '--test-reporter=tap',
  `--test-reporter-destination=${tap}`,
  `--test-reporter=${join(root, 'scripts/file-times-reporter.mjs')}`,
  `--test-reporter-destination=${times}`,
  '--test-concurrency=1',
  '--test-timeout=600000',
  ...nodeFlags,
  ...files,
]);
const report = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(report)?.[1] ?? 0);
const skipped = count('skipped');
printTimes();
console.log(`\n${count('pass')} passed, ${count('fail') + count('cancelled')} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(code);

// Where the time went: per tier and the slowest files (from the file-times reporter).
function printTimes() {
  if (!existsSync(times)) return;
  const rows = readFileSync(times, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'))
    .map(([seconds, file]) => ({ file, seconds: Number(seconds) }));
  if (rows.length < 2) return;
  const tiers = new Map();
  for (const { file, seconds } of rows) {
    const tier = file.startsWith('src/') ? (file.endsWith('.int.test.ts') ? 'src (int)' : 'src (unit)') : file.split('/').slice(0, 2).join('/');
    tiers.set(tier, (tiers.get(tier) ?? 0) + seconds);
  }
  console.log(`\n== time per tier (file times: ${times})`);
  for (const [tier, seconds] of [...tiers].sort((a, b) => b[1] - a[1])) console.log(`   ${seconds.toFixed(1).padStart(8)}s  ${tier}`);
  console.log('== slowest files');
  for (const { file, seconds } of rows.sort((a, b) => b.seconds - a.seconds).slice(0, 25)) console.log(`   ${seconds.toFixed(1).padStart(8)}s  ${file}`);
}
