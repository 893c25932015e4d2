import { request } from 'node:http';
import type { EngineEndpoint } from '../config/config.ts';
import { AppError } from '../core/errors.ts';
import { run } from '../core/exec.ts';
import type { Compose, ComposeProject, ComposeRunOptions, ComposeVariant } from './compose.ts';
import { composeFailed, composeInvalid, dockerHostOf, engineGone, noComposeCli, POOL_EXHAUSTED, poolExhausted } from './compose-errors.ts';

/** What compose may take from the environment Kade runs in: the program search path and the locale, nothing else. */
const PASSED_ON = ['PATH', 'LANG', 'LC_ALL'];

/**
 * Compose v1 imports `distutils`; with setuptools installed (Debian's python3 has it) that import goes through
 * setuptools' shim and pkg_resources, half of each run's ~0.4 s of CPU. `stdlib` takes Python's own copy instead;
 * a Python without one (3.12 and newer) is detected once and gets setuptools' default, `local`. Compose v2 ignores it.
 */
const DISTUTILS = 'SETUPTOOLS_USE_DISTUTILS';

/**
 * The whole environment compose runs with. Compose interpolates `${X}` from it before the `.env` file, so Kade's own
 * variables (SVC_DATA, BASE_DIR, HOME, …) must never reach it: a template's `${SVC_DATA-./a}` would mount Kade's state.
 * The policy judges compose files with this same map (compose-gate.ts).
 */
export function composeEnvironment(endpoint: EngineEndpoint, from: NodeJS.ProcessEnv = process.env): Readonly<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const key of PASSED_ON) {
    const v = from[key];
    if (v !== undefined) env[key] = v;
  }
  // DOCKER_CONFIG only where Kade means it (a pull with registry credentials, the self-update's helper).
  if (from.DOCKER_CONFIG !== undefined && from !== process.env) env.DOCKER_CONFIG = from.DOCKER_CONFIG;
  env.DOCKER_HOST = dockerHostOf(endpoint);
  env.COMPOSE_INTERACTIVE_NO_CLI = '1';
  env[DISTUTILS] = 'stdlib';
  return Object.freeze(env);
}

interface Detected {
  variant: ComposeVariant;
  /** The value of SETUPTOOLS_USE_DISTUTILS compose v1 runs with. */
  distutils: 'stdlib' | 'local';
}

/** Which CLI a search path finds, asked once per process and path: `docker-compose version` alone costs v1 ~0.4 s of CPU. */
const detections = new Map<string, Promise<Detected>>();

async function detectCli(env: Readonly<Record<string, string>>, prefer: 'auto' | ComposeVariant): Promise<Detected> {
  const tryV2 = prefer !== 'v1' && (await run('docker', ['compose', 'version'], { env, timeoutMs: 15_000 }).catch(() => null));
  if (tryV2 && tryV2.code === 0) return { variant: 'v2', distutils: 'stdlib' };
  if (prefer !== 'v2') {
    for (const distutils of ['stdlib', 'local'] as const) {
      const v1 = await run('docker-compose', ['version'], { env: { ...env, [DISTUTILS]: distutils }, timeoutMs: 15_000 }).catch(() => null);
      if (v1 && v1.code === 0) return { variant: 'v1', distutils };
    }
  }
  throw noComposeCli();
}

/**
 * The compose CLI: `docker compose` (v2 plugin) when present, else `docker-compose` (v1).
 * Arguments are arrays; every user-derived value is a validated name or an absolute path.
 * The CLI runs with `composeEnvironment` only; `opts.env` is where its PATH comes from (which CLI is found).
 */
export function createComposeCli(endpoint: EngineEndpoint, prefer: 'auto' | ComposeVariant = 'auto', opts: { env?: NodeJS.ProcessEnv } = {}): Compose {
  let env = composeEnvironment(endpoint, opts.env ?? process.env);
  const key = `${prefer}\0${env.PATH ?? ''}`;

  const detect = async (): Promise<Detected> => {
    let d = detections.get(key);
    if (!d) {
      d = detectCli(env, prefer);
      detections.set(key, d);
      // A failed detection is asked again next time (compose may be installed meanwhile).
      d.catch(() => detections.delete(key));
    }
    const found = await d;
    if (env[DISTUTILS] !== found.distutils) env = Object.freeze({ ...env, [DISTUTILS]: found.distutils });
    return found;
  };
  const variant = () => detect().then((d) => d.variant);

  async function compose(p: ComposeProject, args: string[], opts: ComposeRunOptions = {}): Promise<string> {
    const v = await variant();
    const files = [p.file, ...(p.overrides ?? [])].flatMap((f) => ['-f', f]);
    const base = ['-p', p.name, ...files, '--project-directory', p.dir, ...args];
    const [file, argv] = v === 'v2' ? ['docker', ['compose', ...base]] : ['docker-compose', base];
    const res = await run(file, argv, {
      env: opts.env ? { ...env, ...opts.env } : env,
      cwd: p.dir,
      timeoutMs: opts.timeoutMs ?? 600_000,
      maxOutput: 256 * 1024,
      ...(opts.onOutput ? { onOutput: opts.onOutput } : {}),
    });
    if (res.timedOut) throw new AppError('compose_failed', `compose ${args[0]} of '${p.name}' timed out`, { params: { stack: p.name } });
    if (res.code !== 0) {
      const tail = (res.stderr || res.stdout).trim().split('\n').slice(-5).join('\n');
      if (POOL_EXHAUSTED.test(tail)) throw poolExhausted(p.name, tail);
      // `config` never talks to the engine; every other command that failed may have lost it midway,
      // and compose's own last lines then rarely say so (a traceback, or just "Recreating ...").
      if (args[0] !== 'config' && !(await engineAnswers(endpoint))) throw engineGone(p.name, args[0] ?? '', endpoint, tail);
      throw composeFailed(p.name, args[0] ?? '', tail);
    }
    return res.stdout;
  }

  return {
    variant,
    environment: () => env,
    up: (p, o) => compose(p, ['up', '-d', '--remove-orphans'], o).then(() => undefined),
    down: (p, o) => compose(p, ['down', '--remove-orphans', ...(o?.volumes ? ['--volumes'] : [])], o).then(() => undefined),
    start: (p, o) => compose(p, ['start'], o).then(() => undefined),
    stop: (p, o) => compose(p, ['stop'], o).then(() => undefined),
    restart: (p, o) => compose(p, ['restart'], o).then(() => undefined),
    pull: (p, o) => compose(p, ['pull'], o).then(() => undefined),
    async validate(p) {
      try {
        await compose(p, ['config', '-q'], { timeoutMs: 60_000 });
      } catch (err) {
        const msg = err instanceof AppError ? err.message.replace(/^compose config of '[^']*' failed: /, '') : String(err);
        throw composeInvalid(p.name, msg, err);
      }
    },
  };
}

/** Whether the engine answers `GET /_ping` within `timeoutMs`. */
function engineAnswers(e: EngineEndpoint, timeoutMs = 5_000): Promise<boolean> {
  return new Promise((resolve) => {
    const where = 'socketPath' in e ? { socketPath: e.socketPath } : { host: e.host, port: e.port };
    const req = request({ ...where, path: '/_ping', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
