import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

/** Label every engine test puts on the containers, networks and volumes it creates. */
export const TEST_LABEL = 'kade.test';
/**
 * The run's lane when `npm test` runs files side by side (scripts/test.mjs sets KADE_TEST_LANE and a TMPDIR of the
 * lane's own): a lane's cleanup removes only what that lane made, so two lanes share one engine.
 */
const LANE = process.env.KADE_TEST_LANE;
/** The value of TEST_LABEL on what a test creates itself (containers, networks, volumes outside compose). */
export const TEST_LABEL_VALUE = LANE ? `lane${LANE}` : '1';
/** Compose projects of tests are named `kadetest-...`; cleanup removes them by this prefix. */
export const TEST_PROJECT_PREFIX = 'kadetest';
const PROJECT_LABEL = 'com.docker.compose.project';
const WORKING_DIR_LABEL = 'com.docker.compose.project.working_dir';

async function docker(args: string[], timeout = 60_000): Promise<string> {
  const { stdout } = await execFileP('docker', args, { timeout, maxBuffer: 16 << 20 });
  return stdout.trim();
}

let reachable: boolean | undefined;
let lastError = '';

/** True when the Docker engine answers (`docker version`); a success is cached. */
export async function engineAvailable(): Promise<boolean> {
  if (reachable) return true;
  try {
    await docker(['version', '--format', '{{.Server.Version}}'], 15_000);
    reachable = true;
  } catch (err) {
    const e = err as { stderr?: string; message?: string };
    lastError = (e.stderr || e.message || String(err)).trim();
    reachable = false;
  }
  return reachable;
}

function unreachableMessage(): string {
  const where = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  return (
    `Docker engine not reachable at ${where}: ${lastError}\n` +
    'Engine tests need a running dockerd (CI starts one in .ci/run). ' +
    'Set KADE_SKIP_ENGINE=1 to skip them on purpose.'
  );
}

/** Throws a clear error when the engine is unreachable. Engine tests fail, never silently skip. */
export async function requireEngine(): Promise<void> {
  if (!(await engineAvailable())) throw new Error(unreachableMessage());
}

/**
 * For `test(name, { skip: await engineSkip() }, fn)`: false when the engine answers; a reason
 * when it does not and KADE_SKIP_ENGINE=1; otherwise throws like requireEngine.
 */
export async function engineSkip(): Promise<string | false> {
  if (await engineAvailable()) return false;
  if (process.env.KADE_SKIP_ENGINE === '1') return 'KADE_SKIP_ENGINE=1 and the Docker engine is not reachable';
  throw new Error(unreachableMessage());
}

/** The folder every temporary folder of this lane is made in; compose projects started there are the lane's. */
const laneRoot = (): string => tmpdir() + sep;
/** Compose projects this lane has seen as its own, kept so their networks and volumes go after their containers. */
const laneProjectsFile = (): string => join(tmpdir(), '.kade-test-projects');

function laneProjects(): Set<string> {
  return new Set(existsSync(laneProjectsFile()) ? readFileSync(laneProjectsFile(), 'utf8').split('\n').filter(Boolean) : []);
}

async function listIds(kind: 'container' | 'network' | 'volume'): Promise<string[]> {
  const idField = kind === 'volume' ? '{{.Name}}' : '{{.ID}}';
  const all = kind === 'container' ? ['--all'] : [];
  const label = LANE ? `label=${TEST_LABEL}=${TEST_LABEL_VALUE}` : `label=${TEST_LABEL}`;
  const labelled = await docker([kind, 'ls', ...all, '--quiet', '--filter', label]);
  const format = `${idField}\t{{.Label "${PROJECT_LABEL}"}}${kind === 'container' ? `\t{{.Label "${WORKING_DIR_LABEL}"}}` : ''}`;
  const projects = await docker([kind, 'ls', ...all, '--filter', `label=${PROJECT_LABEL}`, '--format', format]);
  const ids = [...labelled.split('\n'), ...testProjectIds(projects, kind)].filter((id) => id !== '');
  return [...new Set(ids)];
}

/** `id<TAB>project[<TAB>working dir]` rows, filtered to test projects (of this lane when lanes run). */
function testProjectIds(output: string, kind: 'container' | 'network' | 'volume'): string[] {
  const rows = output
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([id, project]) => id && project?.startsWith(TEST_PROJECT_PREFIX));
  if (!LANE) return rows.map(([id]) => id as string);
  if (kind === 'container') {
    const own = rows.filter(([, , dir]) => dir?.startsWith(laneRoot()));
    const known = laneProjects();
    const fresh = [...new Set(own.map(([, project]) => project as string))].filter((p) => !known.has(p));
    if (fresh.length > 0) appendFileSync(laneProjectsFile(), `${fresh.join('\n')}\n`);
    return own.map(([id]) => id as string);
  }
  const known = laneProjects();
  return rows.filter(([, project]) => known.has(project as string)).map(([id]) => id as string);
}

/**
 * Removes every container (forced), network and volume labelled `kade.test`, and those of
 * compose projects named `kadetest...`. Tries everything, then throws if anything stayed. When lanes
 * run, only the lane's own: its label value, and projects whose working dir is in the lane's TMPDIR.
 */
export async function cleanupLabelled(): Promise<void> {
  const failures: string[] = [];
  const remove = async (kind: 'container' | 'network' | 'volume', rmArgs: string[]) => {
    const ids = await listIds(kind);
    if (ids.length === 0) return;
    try {
      await docker([kind, 'rm', ...rmArgs, ...ids], 120_000);
    } catch (err) {
      const e = err as { stderr?: string; message?: string };
      // Something may have gone meanwhile; only report what is still there.
      const left = (await listIds(kind)).filter((id) => ids.includes(id));
      if (left.length > 0) failures.push(`${kind}s ${left.join(' ')}: ${(e.stderr || e.message || '').trim()}`);
    }
  };
  await remove('container', ['--force', '--volumes']);
  await remove('network', []);
  await remove('volume', ['--force']);
  if (failures.length > 0) throw new Error(`cleanupLabelled left resources behind:\n${failures.join('\n')}`);
}
