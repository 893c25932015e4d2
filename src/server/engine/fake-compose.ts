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
  /**
   * The engine at `endpoint`. With `addVolume` (the fake engine's), named volumes carry the project label as compose's
   * do; with `attach`, a service on several networks joins all of them (the Engine port has no network connect).
   */
  engine: Engine & { addVolume?: (name: string, labels?: Record<string, string>) => void; attach?: (id: string, network: string) => void };
  /** The CLI found (default v2); null: none is installed, so `variant()` and every run fail as the adapter's do. */
  variant?: ComposeVariant | null;
  read?: ReadFile;
  /** Where compose's PATH and locale come from (composeEnvironment); never Kade's own environment by default. */
  env?: NodeJS.ProcessEnv;
}

const CONFIG_HASH_LABEL = 'com.docker.compose.config-hash';

/** What the runs below share: the engine, the CLI found, the files' reader, compose's environment, the record and switches. */
interface Fake {
  engine: FakeComposeOptions['engine'];
  endpoint: EngineEndpoint;
  variant: ComposeVariant | null;
  read: ReadFile;
  env: Readonly<Record<string, string>>;
  calls: FakeComposeCall[];
  switches: ReturnType<typeof createSwitches<ComposeOp>>;
}

type Say = (line: string) => void;

export function createFakeCompose(o: FakeComposeOptions): FakeCompose {
  const f: Fake = {
    engine: o.engine,
    endpoint: o.endpoint,
    variant: o.variant === undefined ? 'v2' : o.variant,
    read: o.read ?? readDisk,
    env: composeEnvironment(o.endpoint, o.env ?? { PATH: '/usr/local/bin:/usr/bin:/bin' }),
    calls: [],
    switches: createSwitches<ComposeOp>(),
  };
  const { engine } = f;
  return {
    calls: f.calls,
    variant: async () => {
      if (f.variant === null) throw noComposeCli();
      return f.variant;
    },
    environment: () => f.env,
    up: runOp(f, 'up', (p, say) => up(f, p, say)),
    down: runOp(f, 'down', (p, say, opts) => down(f, p, say, opts)),
    start: each(f, 'start', (c) => (c.state === 'running' ? null : engine.startContainer(c.id))),
    stop: each(f, 'stop', (c) => (c.state === 'running' ? engine.stopContainer(c.id) : null)),
    restart: each(f, 'restart', (c) => engine.restartContainer(c.id)),
    pull: runOp(f, 'pull', async (p, say) => {
      for (const s of load(f, p).services) {
        say(`Pulling ${s.name} ... `);
        await engine.pullImage(s.image);
      }
    }),
    validate: (p) => validate(f, p),
    failOn: f.switches.failOn,
    hold: f.switches.hold,
  };
}

function load(f: Fake, p: ComposeProject): FakeProjectModel {
  if (f.variant === null) throw noComposeCli();
  return loadProject(p, { read: f.read, environment: f.env, variant: f.variant });
}

async function enter(f: Fake, op: ComposeOp, p: ComposeProject, opts?: ComposeRunOptions): Promise<void> {
  f.calls.push({ op, project: p.name, files: [p.file, ...(p.overrides ?? [])], ...(opts?.env ? { env: { ...opts.env } } : {}) });
  await f.switches.passed(op);
  const fault = f.switches.fault(op);
  if (fault) throw fault.error ?? composeFailed(p.name, op, 'fake failure');
}

/** A run: its failures read as the CLI's do (the engine gone, no address pool left, or compose's words). */
function runOp(f: Fake, op: Exclude<ComposeOp, 'validate'>, work: (p: ComposeProject, say: Say, opts: ComposeRunOptions) => Promise<void>) {
  return async (p: ComposeProject, opts: ComposeRunOptions = {}): Promise<void> => {
    await enter(f, op, p, opts);
    if (f.variant === null) throw noComposeCli();
    const say = (line: string) => opts.onOutput?.(`${line}\n`);
    try {
      await work(p, say, opts);
    } catch (err) {
      const said = err instanceof Error ? err.message : String(err);
      const answers = await f.engine.ping().then(
        () => true,
        () => false,
      );
      if (!answers) throw engineGone(p.name, op, f.endpoint, said);
      if (POOL_EXHAUSTED.test(said)) throw poolExhausted(p.name, said);
      throw composeFailed(p.name, op, said);
    }
  };
}

async function validate(f: Fake, p: ComposeProject): Promise<void> {
  await enter(f, 'validate', p);
  try {
    load(f, p);
  } catch (err) {
    throw composeInvalid(p.name, err instanceof Error ? err.message : String(err), err);
  }
}

const containersOf = async (f: Fake, p: ComposeProject) => f.engine.listContainers({ project: p.name });
const ofServices = (cs: ContainerSummary[], m: FakeProjectModel) => cs.filter((c) => m.services.some((s) => s.name === c.service));

async function ensureResources(f: Fake, p: ComposeProject, m: FakeProjectModel, say: Say): Promise<void> {
  const { engine } = f;
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

async function create(f: Fake, p: ComposeProject, s: FakeService): Promise<void> {
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
  const id = await f.engine.createContainer({
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
  // Created on its first network; compose connects it to the others before the start.
  for (const n of s.networks.slice(1)) f.engine.attach?.(id, n);
  await f.engine.startContainer(id);
}

async function up(f: Fake, p: ComposeProject, say: Say): Promise<void> {
  const { engine } = f;
  const m = load(f, p);
  await ensureResources(f, p, m, say);
  const existing = await containersOf(f, p);
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
    await create(f, p, s);
  }
}

async function down(f: Fake, p: ComposeProject, say: Say, opts: ComposeRunOptions): Promise<void> {
  const { engine } = f;
  const m = load(f, p);
  for (const c of await containersOf(f, p)) {
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
}

function each(f: Fake, op: 'start' | 'stop' | 'restart', act: (c: ContainerSummary) => Promise<void> | null) {
  return runOp(f, op, async (p, say) => {
    const cs = ofServices(await containersOf(f, p), load(f, p));
    if (cs.length === 0 && op === 'start') throw new Error('No containers to start');
    for (const c of cs) {
      const done = act(c);
      if (!done) continue;
      say(`${op === 'stop' ? 'Stopping' : op === 'start' ? 'Starting' : 'Restarting'} ${c.name} ... done`);
      await done;
    }
  });
}
