// `npm test`: static checks, build, then every test file: the unit tests in src/ side by side, then the
// others (src/*.int.test.ts, test/helpers, test/engine, test/e2e, other test/ folders) one at a time, or
// in KADE_TEST_LANES lanes side by side with the files marked `// kade-test: alone` after them.
//
//   npm test                      everything
//   npm test -- test/engine       only files under that path (or whose path contains it)
//   npm test -- stacks --test-name-pattern=install
//                                 arguments starting with '-' go to `node --test`
//
// Env: KADE_TEST_NOCHECK=1 skips `npm run check`; KADE_TEST_NOBUILD=1 skips `npm run build`;
// KADE_TEST_LANES=2 runs the engine and browser files in two lanes; KADE_TEST_IMAGES_DONE=<file> waits, before the
// first of them, until that file exists and holds exit code 0 (.ci/run builds the test images meanwhile; its log
// is KADE_TEST_IMAGES_LOG).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, constants, tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TIMES = join(root, 'scripts/test-times.json');
const ORDER = ['src/', 'test/helpers/', 'test/engine/', 'test/e2e/', 'test/'];

/** Files that cannot share the engine with another lane, and why. */
const ALONE = {
  'test/e2e/engine-restart.test.ts': 'restarts or cuts the engine',
  'test/faults/engine-restart.test.ts': 'restarts or cuts the engine',
  'test/faults/engine-cut.test.ts': 'restarts or cuts the engine',
  'test/engine/network-pool.test.ts': 'fills address pools',
  'test/engine/networks.test.ts': 'counts networks and subnets of the default pool',
  'test/e2e/networks.test.ts': 'counts networks',
  'test/e2e/host-network-added.test.ts': 'reads the host network',
  'test/engine/containers.test.ts': 'lists every container',
  'test/e2e/containers.test.ts': 'lists every container',
  'test/engine/fleet-model.test.ts': 'lists every container',
  'test/engine/doctor.test.ts': 'judges the whole host',
  'test/engine/doctor-shell.test.ts': 'judges the whole host',
  'test/e2e/diagnostics.test.ts': 'judges the whole host',
  'test/engine/host-checks.test.ts': 'reads every published port',
  'test/e2e/port-next-free.test.ts': 'reads every published port',
  'test/load/logs.test.ts': 'a load test',
  'test/faults/disk-full.test.ts': 'fills a disk',
};

/**
 * Files that may run beside the other lanes but not beside each other, and why: each group goes into one lane
 * whole, in its usual order.
 */
const TOGETHER = {
  "install Kade on the host (the account svc, Kade's image and its tags, the README's fixed ports)": [
    'test/install/install.test.ts',
    'test/install/build.test.ts',
    'test/install/options.test.ts',
    'test/engine/self-update.test.ts',
    'test/e2e/self-update-flow.test.ts',
    'test/engine/entrypoint.test.ts',
    'test/e2e/first-steps.test.ts',
    'test/scripts/examples-serve.test.ts',
  ],
};

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

function run(cmd, args, env = process.env) {
  return new Promise((resolveRun) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env });
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

async function step(name, cmd, args, env = process.env) {
  const start = Date.now();
  console.log(`\n== ${name}: ${[cmd, ...args].join(' ')}`);
  const code = await run(cmd, args, env);
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
const reportDir = mkdtempSync(join(tmpdir(), 'kade-test-'));
const phases = plan(files);
let code = 0;
for (const phase of phases) {
  // node --test given no files would look for test files itself.
  phase.lanes = phase.lanes.filter((list) => list.length > 0);
  if (phase.lanes.length === 0) continue;
  if (phase.name !== 'unit' && !(await imagesReady())) {
    code = 1;
    break;
  }
  const phaseCode = phase.lanes.length > 1 ? await runLanes(phase) : await nodeTest(phase.name, phase.lanes[0], phase.concurrency, { env: process.env });
  if (phaseCode !== 0 && code === 0) code = phaseCode;
}
const reports = readdirSync(reportDir)
  .filter((f) => f.endsWith('.tap'))
  .map((f) => readFileSync(join(reportDir, f), 'utf8'));
const count = (name) => reports.reduce((sum, report) => sum + Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(report)?.[1] ?? 0), 0);
const skipped = count('skipped');
const measured = printTimes();
if (process.env.KADE_TEST_RECORD === '1' && measured.length > 0) recordTimes(measured);
console.log(`\n${count('pass')} passed, ${count('fail') + count('cancelled')} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(code);

/** KADE_TEST_IMAGES_DONE: waits for the images built beside the unit tests; false (their log shown) when that failed. */
async function imagesReady() {
  const done = process.env.KADE_TEST_IMAGES_DONE;
  if (!done) return true;
  const start = Date.now();
  if (!existsSync(done)) console.log(`\n== waiting for the test images (${process.env.KADE_TEST_IMAGES_LOG ?? done})`);
  while (!existsSync(done)) await new Promise((r) => setTimeout(r, 1000));
  const exit = readFileSync(done, 'utf8').trim();
  if (Date.now() - start > 1000) console.log(`== test images ready after ${((Date.now() - start) / 1000).toFixed(1)}s of waiting`);
  if (exit === '0') return true;
  const log = process.env.KADE_TEST_IMAGES_LOG;
  console.error(`\n== building the test images failed (exit ${exit})${log && existsSync(log) ? `:\n${readFileSync(log, 'utf8').slice(-8000)}` : ''}`);
  return false;
}

/**
 * The run in phases: the unit tests side by side (no engine, no shared state); then every other file, in
 * KADE_TEST_LANES lanes side by side on the one engine (each lane a TMPDIR and a label value of its own, so its
 * cleanup takes only what it made: test/helpers/engine.ts); then, one at a time, the files marked
 * `// kade-test: alone` near their top (they restart or cut the engine, fill its pools, or count everything on it).
 */
function plan(all) {
  const isUnit = (f) => f.startsWith('src/') && !f.endsWith('.int.test.ts');
  const unit = all.filter(isUnit);
  const rest = all.filter((f) => !isUnit(f));
  const laneCount = Math.max(1, Math.floor(Number(process.env.KADE_TEST_LANES ?? '1')) || 1);
  if (laneCount === 1)
    return [
      { name: 'unit', lanes: [unit], concurrency: cpus() },
      { name: 'test', lanes: [rest], concurrency: 1 },
    ];
  const alone = rest.filter(marksAlone);
  const shared = rest.filter((f) => !alone.includes(f));
  return [
    { name: 'unit', lanes: [unit], concurrency: cpus() },
    { name: 'lanes', lanes: balance(shared, laneCount), concurrency: 1 },
    { name: 'alone', lanes: [alone], concurrency: 1 },
  ];
}

/**
 * Files into lanes of about equal time: longest first, each into the lane with the least time so far, by the
 * times `scripts/test-times.json` recorded (KADE_TEST_RECORD=1 writes them after a run); a file without a record
 * counts as the median of its folder. Within a lane the files keep their usual order.
 */
function balance(files, laneCount) {
  const recorded = existsSync(TIMES) ? JSON.parse(readFileSync(TIMES, 'utf8')) : {};
  const folderOf = (f) => f.split('/').slice(0, 2).join('/');
  const median = (xs) => (xs.length ? xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] : 10);
  const guessOf = (f) =>
    recorded[f] ??
    median(
      Object.entries(recorded)
        .filter(([g]) => folderOf(g) === folderOf(f))
        .map(([, t]) => t),
    );
  // A group of TOGETHER is one unit of its files' summed time; every other file a unit of its own.
  const groupOf = new Map(Object.values(TOGETHER).flatMap((group) => group.map((f) => [f, group])));
  const units = [];
  const placed = new Set();
  for (const f of files) {
    const group = groupOf.get(f);
    if (!group) units.push([f]);
    else if (!placed.has(group)) {
      placed.add(group);
      units.push(files.filter((g) => groupOf.get(g) === group));
    }
  }
  const guess = new Map(units.map((u) => [u, u.reduce((sum, f) => sum + guessOf(f), 0)]));
  const lanes = Array.from({ length: laneCount }, () => ({ files: [], total: 0 }));
  for (const u of [...units].sort((a, b) => guess.get(b) - guess.get(a))) {
    const lane = lanes.reduce((least, l) => (l.total < least.total ? l : least));
    lane.files.push(...u);
    lane.total += guess.get(u);
  }
  return lanes.map((l) => l.files.sort((a, b) => files.indexOf(a) - files.indexOf(b)));
}

function cpus() {
  return Math.max(1, availableParallelism());
}

function marksAlone(file) {
  return file in ALONE;
}

/** One `node --test` over files; spec to stdout (or to specFile), TAP and file times into reportDir. */
function nodeTest(name, list, concurrency, { env, specFile }) {
  const base = join(reportDir, name);
  const nodeArgs = [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    `--test-reporter-destination=${specFile ?? 'stdout'}`,
    '--test-reporter=tap',
    `--test-reporter-destination=${base}.tap`,
    ...(concurrency === 1 ? [`--test-reporter=${join(root, 'scripts/file-times-reporter.mjs')}`, `--test-reporter-destination=${base}.times`] : []),
    `--test-concurrency=${concurrency}`,
    '--test-timeout=600000',
    ...nodeFlags,
    ...list,
  ];
  return step(name, process.execPath, nodeArgs, env);
}

async function runLanes(phase) {
  // What an earlier run left behind goes first; from here on each lane removes only its own.
  await run(process.execPath, [
    '--import',
    'tsx',
    '-e',
    "import('./test/helpers/engine.ts').then((m) => m.engineAvailable().then((up) => up && m.cleanupLabelled())).catch((e) => console.error(e.message))",
  ]);
  const start = Date.now();
  console.log(
    `\n== lanes: ${phase.lanes.length} side by side (${phase.lanes.map((l) => l.length).join(' + ')} files); lane 1 prints as it runs, the others when done`,
  );
  const codes = await Promise.all(
    phase.lanes.map((list, i) => {
      const lane = String(i + 1);
      const dir = join(tmpdir(), `kade-lane-${lane}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const env = { ...process.env, KADE_TEST_LANE: lane, TMPDIR: dir };
      return nodeTest(`lane${lane}`, list, 1, { env, specFile: i === 0 ? undefined : join(reportDir, `lane${lane}.spec`) });
    }),
  );
  for (const [i] of phase.lanes.entries()) {
    if (i === 0) continue;
    console.log(`\n== lane ${i + 1} (exit ${codes[i]}):`);
    const spec = join(reportDir, `lane${i + 1}.spec`);
    if (existsSync(spec)) process.stdout.write(readFileSync(spec, 'utf8'));
  }
  const failed = codes.find((c) => c !== 0) ?? 0;
  console.log(`== lanes: ${failed === 0 ? 'ok' : `failed (exit ${failed})`} in ${((Date.now() - start) / 1000).toFixed(1)}s`);
  return failed;
}

// Where the time went: per tier and the slowest files (from the file-times reporter).
function printTimes() {
  const rows = readdirSync(reportDir)
    .filter((f) => f.endsWith('.times'))
    .flatMap((f) => readFileSync(join(reportDir, f), 'utf8').split('\n'))
    .filter(Boolean)
    .map((line) => line.split('\t'))
    .map(([seconds, file]) => ({ file, seconds: Number(seconds) }));
  if (rows.length < 2) return rows;
  const tiers = new Map();
  for (const { file, seconds } of rows) {
    const tier = file.startsWith('src/') ? (file.endsWith('.int.test.ts') ? 'src (int)' : 'src (unit)') : file.split('/').slice(0, 2).join('/');
    tiers.set(tier, (tiers.get(tier) ?? 0) + seconds);
  }
  console.log(`\n== time per tier, files run one at a time (file times: ${reportDir}/*.times)`);
  for (const [tier, seconds] of [...tiers].sort((a, b) => b[1] - a[1])) console.log(`   ${seconds.toFixed(1).padStart(8)}s  ${tier}`);
  console.log('== slowest files');
  for (const { file, seconds } of rows.sort((a, b) => b.seconds - a.seconds).slice(0, 25)) console.log(`   ${seconds.toFixed(1).padStart(8)}s  ${file}`);
  return rows;
}

/** KADE_TEST_RECORD=1: the measured file times into scripts/test-times.json, which the lanes are balanced by. */
function recordTimes(rows) {
  const recorded = existsSync(TIMES) ? JSON.parse(readFileSync(TIMES, 'utf8')) : {};
  for (const { file, seconds } of rows) recorded[file] = Math.round(seconds * 10) / 10;
  const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(TIMES, `${JSON.stringify(sorted, null, 2)}\n`);
  console.log(`== file times recorded in ${relative(root, TIMES)}`);
}
