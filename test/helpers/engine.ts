import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

/** Label every engine test puts on the containers, networks and volumes it creates. */
export const TEST_LABEL = 'kade.test';
/** Compose projects of tests are named `kadetest-...`; cleanup removes them by this prefix. */
export const TEST_PROJECT_PREFIX = 'kadetest';
const PROJECT_LABEL = 'com.docker.compose.project';

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

/** `id<TAB>project` rows of a `ls`-style command, filtered to test projects. */
function testProjectIds(output: string): string[] {
  return output
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([id, project]) => id && project?.startsWith(TEST_PROJECT_PREFIX))
    .map(([id]) => id as string);
}

async function listIds(kind: 'container' | 'network' | 'volume'): Promise<string[]> {
  const idField = kind === 'volume' ? '{{.Name}}' : '{{.ID}}';
  const all = kind === 'container' ? ['--all'] : [];
  const labelled = await docker([kind, 'ls', ...all, '--quiet', '--filter', `label=${TEST_LABEL}`]);
  const projects = await docker([kind, 'ls', ...all, '--filter', `label=${PROJECT_LABEL}`, '--format', `${idField}\t{{.Label "${PROJECT_LABEL}"}}`]);
  const ids = [...labelled.split('\n'), ...testProjectIds(projects)].filter((id) => id !== '');
  return [...new Set(ids)];
}

/**
 * Removes every container (forced), network and volume labelled `kade.test`, and those of
 * compose projects named `kadetest...`. Tries everything, then throws if anything stayed.
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
