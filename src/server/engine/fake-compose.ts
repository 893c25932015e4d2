/**
 * An in-memory compose for unit tests: one per engine endpoint, as the CLI adapter is, driving the Engine it is given
 * (the fake engine, fake-engine.ts) the way compose drives the daemon: a network per project, named volumes, one
 * container per service with compose's labels, recreated when its configuration changed, orphans removed. It reads the
 * project's files through `read` (the disk, or a stack store's in-memory folder) and judges them as `config` does
 * (fake-compose-file.ts). `compose.contract.ts` runs the same cases on it and on the CLI over a real daemon; where they
 * disagree the real one is right. Switches: `failOn` fails a named operation before it acts, `hold` keeps one waiting
 * until released; `calls` records every run.
 */
import type { EngineEndpoint } from '../config/config.ts';
import type { Compose, ComposeProject, ComposeRunOptions, ComposeVariant } from './compose.ts';
import { composeEnvironment } from './compose-cli.ts';
import { composeFailed, composeInvalid, engineGone, noComposeCli, POOL_EXHAUSTED, poolExhausted } from './compose-errors.ts';
import { COMPOSE_PROJECT_LABEL, COMPOSE_SERVICE_LABEL, COMPOSE_WORKDIR_LABEL, type ContainerSummary, type Engine } from './engine.ts';
import { type FakeProjectModel, type FakeService, loadProject, type ReadFile, readDisk } from './fake-compose-file.ts';
import { createSwitches, type FaultOptions } from './fake-switches.ts';

export type ComposeOp = 'up' | 'down' | 'start' | 'stop' | 'restart' | 'pull' | 'validate';

export interface FakeComposeCall {
  op: ComposeOp;
  project: string;
  files: string[];
  /** The extra environment of this run (a pull's DOCKER_CONFIG). */
  env?: Record<string, string>;
}

export interface FakeCompose extends Compose {
  /** Every run, in order. */
  calls: FakeComposeCall[];
  /**
   * Makes runs of `op` ('*': any) fail with `error` (default: compose_failed with "fake failure") before they act: the
   * `nth` from now (1 = the next) and `times` from there (default 1); without `nth`, every one. Returns the undo.
   */
  failOn(op: ComposeOp | '*', opts?: FaultOptions): () => void;
  /** Runs of `op` from now on wait before they act until the returned function is called. */
  hold(op: ComposeOp): () => void;
}

export interface FakeComposeOptions {
  endpoint: EngineEndpoint;
  /** The engine at `endpoint`. With `addVolume` (the fake engine's), named volumes carry the project label as compose's do. */
  engine: Engine & { addVolume?: (name: string, labels?: Record<string, string>) => void };
  /** The CLI found (default v2); null: none is installed, so `variant()` and every run fail as the adapter's do. */
  variant?: ComposeVariant | null;
  read?: ReadFile;
  /** Where compose's PATH and locale come from (composeEnvironment); never Kade's own environment by default. */
  env?: NodeJS.ProcessEnv;
}

const CONFIG_HASH_LABEL = 'com.docker.compose.config-hash';

export function createFakeCompose(o: FakeComposeOptions): FakeCompose {
  const { engine, endpoint } = o;
  const variant = o.variant === undefined ? 'v2' : o.variant;
  const read = o.read ?? readDisk;
  const env = composeEnvironment(endpoint, o.env ?? { PATH: '/usr/local/bin:/usr/bin:/bin' });
  const calls: FakeComposeCall[] = [];
  const switches = createSwitches<ComposeOp>();

  const load = (p: ComposeProject): FakeProjectModel => {
    if (variant === null) throw noComposeCli();
    return loadProject(p, { read, environment: env, variant });
  };

  async function enter(op: ComposeOp, p: ComposeProject, opts?: ComposeRunOptions): Promise<void> {
    calls.push({ op, project: p.name, files: [p.file, ...(p.overrides ?? [])], ...(opts?.env ? { env: { ...opts.env } } : {}) });
    await switches.passed(op);
    const fault = switches.fault(op);
    if (fault) throw fault.error ?? composeFailed(p.name, op, 'fake failure');
  }

  /** A run: its failures read as the CLI's do (the engine gone, no address pool left, or compose's words). */
  function runOp(op: Exclude<ComposeOp, 'validate'>, work: (p: ComposeProject, say: (line: string) => void, opts: ComposeRunOptions) => Promise<void>) {
    return async (p: ComposeProject, opts: ComposeRunOptions = {}): Promise<void> => {
      await enter(op, p, opts);
      if (variant === null) throw noComposeCli();
      const say = (line: string) => opts.onOutput?.(`${line}\n`);
      try {
        await work(p, say, opts);
      } catch (err) {
        const said = err instanceof Error ? err.message : String(err);
        const answers = await engine.ping().then(
          () => true,
          () => false,
        );
        if (!answers) throw engineGone(p.name, op, endpoint, said);
        if (POOL_EXHAUSTED.test(said)) throw poolExhausted(p.name, said);
        throw composeFailed(p.name, op, said);
      }
    };
  }

  const containersOf = async (p: ComposeProject) => engine.listContainers({ project: p.name });
  const ofServices = (cs: ContainerSummary[], m: FakeProjectModel) => cs.filter((c) => m.services.some((s) => s.name === c.service));

  async function ensureResources(p: ComposeProject, m: FakeProjectModel, say: (line: string) => void): Promise<void> {
    const have = new Set((await engine.listNetworks()).map((n) => n.name));
    for (const n of m.networks) {
      if (have.has(n.name)) continue;
      if (n.external) {
        throw new Error(
          `Network ${n.name} declared as external, but could not be found. Please create the network manually using \`docker network create ${n.name}\` and try again.`,
        );
      }
      say(`Creating network "${n.name}" with the default driver`);
      const labels = { [COMPOSE_PROJECT_LABEL]: p.name, 'com.docker.compose.network': n.key };
      await engine.createNetwork({ name: n.name, driver: 'bridge', subnet: null, gateway: null, range: null, parent: null, labels });
    }
    for (const v of m.volumes) if (!v.external) engine.addVolume?.(v.name, { [COMPOSE_PROJECT_LABEL]: p.name, 'com.docker.compose.volume': v.key });
    for (const s of m.services) {
      if (await engine.inspectImage(s.image)) continue;
      say(`Pulling ${s.name} (${s.image})...`);
      await engine.pullImage(s.image);
    }
  }

  async function create(p: ComposeProject, s: FakeService): Promise<void> {
    const labels = {
      ...s.labels,
      [COMPOSE_PROJECT_LABEL]: p.name,
      [COMPOSE_SERVICE_LABEL]: s.name,
      [COMPOSE_WORKDIR_LABEL]: p.dir,
      'com.docker.compose.project.config_files': [p.file, ...(p.overrides ?? [])].join(','),
      'com.docker.compose.container-number': '1',
      'com.docker.compose.oneoff': 'False',
      [CONFIG_HASH_LABEL]: s.hash,
    };
    const id = await engine.createContainer({
      image: s.image,
      cmd: s.cmd,
      name: s.containerName,
      ...(s.entrypoint ? { entrypoint: s.entrypoint } : {}),
      ...(s.user ? { user: s.user } : {}),
      ...(s.workingDir ? { workingDir: s.workingDir } : {}),
      env: s.env,
      labels,
      ...(s.networks[0] ? { network: s.networks[0] } : {}),
      mounts: s.mounts,
      publish: s.publish,
    });
    await engine.startContainer(id);
  }

  const up = runOp('up', async (p, say) => {
    const m = load(p);
    await ensureResources(p, m, say);
    const existing = await containersOf(p);
    for (const c of existing.filter((x) => !m.services.some((s) => s.name === x.service))) {
      say(`Removing orphan container "${c.name}"`);
      await engine.removeContainer(c.id);
    }
    for (const s of m.services) {
      const c = existing.find((x) => x.service === s.name);
      if (c && c.labels[CONFIG_HASH_LABEL] === s.hash) {
        if (c.state !== 'running') await engine.startContainer(c.id);
        say(`${s.containerName} is up-to-date`);
        continue;
      }
      if (c) await engine.removeContainer(c.id);
      say(`${c ? 'Recreating' : 'Creating'} ${s.containerName} ... done`);
      await create(p, s);
    }
  });

  const down = runOp('down', async (p, say, opts) => {
    const m = load(p);
    for (const c of await containersOf(p)) {
      say(`Removing ${c.name} ... done`);
      await engine.removeContainer(c.id);
    }
    const have = new Set((await engine.listNetworks()).map((n) => n.name));
    for (const n of m.networks) {
      if (n.external || !have.has(n.name)) continue;
      say(`Removing network ${n.name}`);
      await engine.removeNetwork(n.name);
    }
    if ((opts as { volumes?: boolean }).volumes) for (const v of await engine.listVolumes({ project: p.name })) await engine.removeVolume(v);
  });

  const each = (op: 'start' | 'stop' | 'restart', act: (c: ContainerSummary) => Promise<void> | null) =>
    runOp(op, async (p, say) => {
      const cs = ofServices(await containersOf(p), load(p));
      if (cs.length === 0 && op === 'start') throw new Error('No containers to start');
      for (const c of cs) {
        const done = act(c);
        if (!done) continue;
        say(`${op === 'stop' ? 'Stopping' : op === 'start' ? 'Starting' : 'Restarting'} ${c.name} ... done`);
        await done;
      }
    });

  const pull = runOp('pull', async (p, say) => {
    for (const s of load(p).services) {
      say(`Pulling ${s.name} ... `);
      await engine.pullImage(s.image);
    }
  });

  return {
    calls,
    variant: async () => {
      if (variant === null) throw noComposeCli();
      return variant;
    },
    environment: () => env,
    up,
    down,
    start: each('start', (c) => (c.state === 'running' ? null : engine.startContainer(c.id))),
    stop: each('stop', (c) => (c.state === 'running' ? engine.stopContainer(c.id) : null)),
    restart: each('restart', (c) => engine.restartContainer(c.id)),
    pull,
    async validate(p) {
      await enter('validate', p);
      try {
        load(p);
      } catch (err) {
        throw composeInvalid(p.name, err instanceof Error ? err.message : String(err), err);
      }
    },
    failOn: switches.failOn,
    hold: switches.hold,
  };
}
