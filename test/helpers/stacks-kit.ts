/**
 * The stacks service in memory for unit tests of its use cases (install, reconfigure, connect, adopt, remove, the
 * recovery after a crash): built through the facade (`createStacksService`) over the fake engine and the fake compose
 * on it, the stack store's in-memory folders (`memoryIO`, with its disk-full switch), the jobs on SQLite in a temp
 * folder, and a catalogue synced by the fake git from a repo of two small apps. DATA_DIR is a real temp folder: what
 * "remove data" removes lies on the disk.
 *
 * A crash: `crashAt(point)` arms a failpoint (core/failpoint.ts) that, instead of killing the process, cuts the running
 * Kade off from everything it could still change (folders, engine, compose, the jobs' database and logs), so its job
 * stays `running` exactly as a killed Kade leaves it; `restart()` then builds a new Kade over the same state and runs
 * the recovery, as `kade.ts` does at start.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type CatalogueService, createCatalogueService } from '../../src/server/catalogue/catalogue.service.ts';
import { createFakeGit } from '../../src/server/catalogue/fake-git.ts';
import { createReposRepo } from '../../src/server/catalogue/repos.repo.ts';
import { type Actor, createEventBus, type DomainEvent } from '../../src/server/core/events.ts';
import { armFailpoint } from '../../src/server/core/failpoint.ts';
import { createLogger } from '../../src/server/core/logger.ts';
import { type Db, openDb } from '../../src/server/db/db.ts';
import type { Engine } from '../../src/server/engine/engine.ts';
import { createFakeCompose, type FakeCompose } from '../../src/server/engine/fake-compose.ts';
import { createFakeEngine, type FakeEngine } from '../../src/server/engine/fake-engine.ts';
import { createJobLogStore } from '../../src/server/jobs/job-log.ts';
import { createJobsRepo } from '../../src/server/jobs/jobs.repo.ts';
import { createJobsService, type JobsService } from '../../src/server/jobs/jobs.service.ts';
import { createStacksService, type StacksService } from '../../src/server/stacks/stacks.service.ts';
import { parseEnv } from '../../src/server/stacks/store/env-file.ts';
import { type MemoryIO, memoryIO } from '../../src/server/stacks/store/memory-io.ts';
import type { NetworksPort } from '../../src/server/stacks/use-cases/stack-context.ts';
import type { JobT } from '../../src/shared/api.ts';

export const ADMIN: Actor = { user: 'ada', role: 'admin', ip: '127.0.0.1' };
export const OPERATOR: Actor = { user: 'olga', role: 'operator', ip: '127.0.0.1' };

/** The images the apps of the kit's repo run; the fake engine has them. */
export const IMAGES = { web: 'kade-test/web:1', postgres: 'kade-test/postgres:15' };

/** The shared network of the kit (SHARED_NETWORK): known to Kade, made in the engine by the first app that joins it. */
export const SHARED = 'kade-shared';

/**
 * `notes`: one service with the app's own data folder and a named volume. `board`: a web service and a PostgreSQL
 * database whose password is a secret of the form (a change of it is set inside the running database first).
 */
const APPS: Record<string, { template: object; compose: string }> = {
  notes: {
    template: {
      name: 'Notes',
      version: '1.0.0',
      fields: [
        { id: 'title', label: 'Title', default: 'Notes', required: true },
        { id: 'appdata_dir', label: 'Data folder', type: 'path', required: true, advanced: true },
      ],
    },
    compose: [
      'services:',
      '  web:',
      `    image: ${IMAGES.web}`,
      '    command: ["sleep", "infinity"]',
      '    environment:',
      '      TITLE: "{{title}}"',
      '    volumes:',
      '      - "{{appdata_dir}}:/data"',
      '      - "cache:/cache"',
      'volumes:',
      '  cache: {}',
      '',
    ].join('\n'),
  },
  board: {
    template: {
      name: 'Board',
      version: '1.0.0',
      fields: [
        { id: 'title', label: 'Title', default: 'Board', required: true },
        { id: 'db_password', label: 'Database password', type: 'password', secret: true, generate: true },
      ],
    },
    compose: [
      'services:',
      '  web:',
      `    image: ${IMAGES.web}`,
      '    command: ["sleep", "infinity"]',
      '    environment:',
      '      TITLE: "{{title}}"',
      '      DATABASE_URL: "postgres://board:{{db_password}}@db:5432/board"',
      '  db:',
      `    image: ${IMAGES.postgres}`,
      '    command: ["sleep", "infinity"]',
      '    environment:',
      '      POSTGRES_USER: board',
      '      POSTGRES_DB: board',
      '      POSTGRES_PASSWORD: "{{db_password}}"',
      '',
    ].join('\n'),
  },
};

/** `dash`: a dashboard that binds the engine socket read-only, a power only an admin allows. */
APPS.dash = {
  template: { name: 'Dash', version: '1.0.0', fields: [{ id: 'title', label: 'Title', default: 'Dash', required: true }] },
  compose: [
    'services:',
    '  web:',
    `    image: ${IMAGES.web}`,
    '    command: ["sleep", "infinity"]',
    '    environment:',
    '      TITLE: "{{title}}"',
    '    volumes:',
    '      - "/var/run/docker.sock:/var/run/docker.sock:ro"',
    '      - "/etc/localtime:/etc/localtime:ro"',
    '',
  ].join('\n'),
};

/** Whether the Kade a dying wrapper belongs to was stopped at a failpoint. */
interface Life {
  dead: boolean;
}

/** `target` as long as its Kade lives; afterwards every call throws, as nothing a killed process does takes effect. */
function dying<T extends object>(target: T, life: Life): T {
  return new Proxy(target, {
    get(t, key, receiver) {
      const v = Reflect.get(t, key, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (life.dead) throw new Error(`Kade was stopped: ${String(key)} never happened`);
        return (v as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
}

/** A file below the kit's root as the memory folder holds it: its bytes and mode. */
export interface FileState {
  text: string;
  mode: number;
}

export interface StacksKit {
  /** The current Kade's stacks service (a new one after `restart`). */
  stacks: StacksService;
  jobs: JobsService;
  catalogue: CatalogueService;
  /** The engine, compose and folders all Kades of the kit share, with their switches. */
  engine: FakeEngine;
  compose: FakeCompose;
  io: MemoryIO;
  /** The current Kade's domain events, in order. */
  events: DomainEvent[];
  paths: { base: string; library: string; state: string; data: string };
  /** The job as the database holds it now, also while the Kade that ran it is stopped. */
  stored(id: string): JobT | null;
  /** Resolves with the job once it ended. */
  done(job: JobT | Promise<JobT>): Promise<JobT>;
  /** Installs `app` of the kit's repo as `name` and waits for the job. */
  install(name: string, app?: string, values?: Record<string, string>, actor?: Actor): Promise<JobT>;
  /** A new commit of the kit's repo (`change` edits its folder, apps/<app>/…), fetched by the catalogue (a store update). */
  updateStore(change: (repoDir: string) => void): Promise<void>;
  /** Every file and link below LIBRARY_DIR and SVC_DATA/adopted, by path: what a rollback must put back byte for byte. */
  tree(): Map<string, FileState | { link: string } | 'dir'>;
  /** The text of a file in the memory folders, or null. */
  read(path: string): string | null;
  /** Writes a file into the memory folders (a user's own folder, an edit by hand), its folder made when missing. */
  write(path: string, text: string, mode?: number): void;
  /** The app's `.env` as Kade reads it. */
  env(name: string): Record<string, string>;
  /** The running containers of a compose project, by service. */
  running(project: string): Promise<Record<string, string>>;
  /** The passwords of the fake PostgreSQL's accounts by user, once `ALTER ROLE` changed one (before: POSTGRES_PASSWORD). */
  dbPasswords: Map<string, string>;
  /**
   * The next write of a file whose path ends with `suffix` fails as on a full disk (`disk_full`, nothing of that write
   * lands), the writes before it (a snapshot) go through.
   */
  failWrite(suffix: string): void;
  /**
   * Arms `point` (`name@n`: its n-th pass), runs `start` and resolves with its job once the current Kade stopped at
   * the point: the job stays `running` in the database, as a killed Kade leaves it.
   */
  crash(point: string, start: () => JobT | Promise<JobT>): Promise<JobT>;
  /** A new Kade over the same folders, engine and database; runs the recovery at start and waits for its jobs. */
  restart(): Promise<{ recovered: number }>;
  dispose(): void;
}

/**
 * `casa-proxy`: an app of another store's format (CasaOS) whose configuration its compose file holds inline, which
 * the install writes as a file of the app's folder (issue 26, class 7).
 */
const CASA_PROXY = [
  'services:',
  '  web:',
  `    image: ${IMAGES.web}`,
  '    command: ["sleep", "infinity"]',
  '    configs:',
  '      - source: site',
  '        target: /etc/site.conf',
  'configs:',
  '  site:',
  '    content: |',
  '      listen 80;',
  'x-casaos:',
  '  main: web',
  '  title:',
  '    en_us: Casa Proxy',
  '',
].join('\n');

/** Writes the kit's repo (apps/<app>/template.json and docker-compose.yml) into `dir`. */
function writeRepo(dir: string): void {
  writeFileSync(join(dir, 'VERSION'), 'v0.1.00\n');
  for (const [app, a] of Object.entries(APPS)) {
    mkdirSync(join(dir, 'apps', app), { recursive: true });
    writeFileSync(join(dir, 'apps', app, 'template.json'), JSON.stringify(a.template, null, 2));
    writeFileSync(join(dir, 'apps', app, 'docker-compose.yml'), a.compose);
  }
  mkdirSync(join(dir, 'apps', 'casa-proxy'), { recursive: true });
  writeFileSync(join(dir, 'apps', 'casa-proxy', 'docker-compose.yml'), CASA_PROXY);
}

/**
 * `psql` as the fake PostgreSQL runs it for `ALTER ROLE`: checks the password it is given (PGPASSWORD) against the
 * account's and sets the new one; an account starts with the POSTGRES_PASSWORD of the container it runs in.
 */
function fakePsql(engine: FakeEngine, passwords: Map<string, string>): void {
  engine.program('psql', (run) => {
    const user = run.args[run.args.indexOf('-U') + 1] ?? 'postgres';
    const current = passwords.get(user) ?? run.env.POSTGRES_PASSWORD ?? '';
    if ((run.env.PGPASSWORD ?? '') !== current) return { exitCode: 2, stderr: `psql: error: password authentication failed for user "${user}"\n` };
    const m = /WITH PASSWORD E'((?:[^']|'')*)'/.exec(run.stdin);
    if (!m) return { exitCode: 1, stderr: 'ERROR:  syntax error\n' };
    passwords.set(user, (m[1] ?? '').replace(/''/g, "'").replace(/\\\\/g, '\\'));
    return { exitCode: 0 };
  });
}

/** The shared networks as the networks service answers the stacks: SHARED only, made in `engine` when first joined. */
function networksOn(engine: Engine): NetworksPort {
  return {
    isKade: (name) => name === SHARED,
    async ensure(name) {
      if ((await engine.listNetworks()).some((n) => n.name === name)) return;
      await engine.createNetwork({ name, driver: 'bridge', subnet: null, gateway: null, range: null, parent: null, labels: {} });
    },
    subnetOf: async () => ({ subnet: null, range: null, gateway: null }),
  };
}

export async function createStacksKit(): Promise<StacksKit> {
  // On a memory file system where there is one: the jobs' database and logs sync every write, which a disk makes slow.
  const tmp = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'kade-stacks-kit-'));
  // In memory: Kade's folders below the base. On the disk: DATA_DIR, the database, job logs and the repo cache.
  const paths = { base: join(tmp, 'base'), library: join(tmp, 'base', 'stacks'), state: join(tmp, 'base', 'state'), data: join(tmp, 'appdata') };
  const io = memoryIO();
  for (const d of [paths.library, paths.state]) io.mkdir(d, 0o755);
  for (const d of [paths.data, join(tmp, 'jobs'), join(tmp, 'repo')]) mkdirSync(d, { recursive: true });
  writeRepo(join(tmp, 'repo'));

  const logger = createLogger('silent');
  const clock = () => new Date();
  const db: Db = openDb(join(tmp, 'kade.db'));
  const jobsRepo = createJobsRepo(db);
  const jobLogs = createJobLogStore(join(tmp, 'jobs'));
  const engine = createFakeEngine();
  for (const image of Object.values(IMAGES)) engine.addImage(image);
  const dbPasswords = new Map<string, string>();
  fakePsql(engine, dbPasswords);
  const compose = createFakeCompose({ endpoint: { socketPath: '/var/run/docker.sock' }, engine, read: (p) => io.read(p) });

  // The catalogue, built once: its repo synced by the fake git into a cache on the disk.
  const git = createFakeGit();
  const remote = git.serve();
  await remote.addRepo('apps', join(tmp, 'repo'));
  const setupEvents = createEventBus(logger);
  const setupJobs = createJobsService({ repo: jobsRepo, logs: jobLogs, events: setupEvents, logger, clock });
  const catalogue = createCatalogueService({
    repos: createReposRepo(db),
    git,
    jobs: setupJobs,
    events: setupEvents,
    cacheDir: join(tmp, 'cache'),
    version: '0.1.0',
    clock,
  });
  const added = catalogue.add(ADMIN, { id: 'store', name: 'Store', url: remote.url('apps'), subdirectory: 'apps' });
  const synced = await setupJobs.wait(added.job.id);
  if (synced.state !== 'succeeded') throw new Error(`the kit's repo did not sync: ${synced.error ?? ''}`);

  // The store's folders as every Kade of the kit sees them: the memory folders with the writes `failWrite` fails.
  const failing: string[] = [];
  const folders: MemoryIO = {
    ...io,
    write(files, opts) {
      const i = failing.findIndex((suffix) => files.some((f) => f.path.endsWith(suffix)));
      if (i < 0) return io.write(files, opts);
      failing.splice(i, 1);
      io.faults.full = true;
      try {
        return io.write(files, opts);
      } finally {
        io.faults.full = false;
      }
    },
  };

  /** One running Kade: its own service objects over the shared state, each cut off once it is stopped. */
  function boot(life: Life) {
    const events: DomainEvent[] = [];
    const bus = createEventBus(logger);
    bus.subscribe((e) => void events.push(e));
    const jobs = createJobsService({ repo: dying(jobsRepo, life), logs: dying(jobLogs, life), events: bus, logger, clock });
    const kadeEngine = dying(engine, life);
    const stacks = createStacksService({
      baseDir: paths.base,
      libraryDir: paths.library,
      dataDir: paths.data,
      stateDir: paths.state,
      engineSocket: '/var/run/docker.sock',
      backupDir: join(tmp, 'backups'),
      allowedHostDirs: () => [],
      uid: 1000,
      gid: 1000,
      timezone: () => 'UTC',
      engine: kadeEngine,
      compose: dying(compose, life),
      io: dying(folders, life),
      jobs,
      catalogue,
      events: bus,
      logger,
      clock,
      networks: networksOn(kadeEngine),
      upPollMs: 1,
    });
    return { stacks, jobs, events };
  }

  let life: Life = { dead: false };
  let current = boot(life);

  const kit: StacksKit = {
    get stacks() {
      return current.stacks;
    },
    get jobs() {
      return current.jobs;
    },
    get events() {
      return current.events;
    },
    catalogue,
    engine,
    compose,
    io,
    paths,
    dbPasswords,
    stored: (id) => jobsRepo.get(id),
    failWrite: (suffix) => void failing.push(suffix),
    async done(job) {
      return current.jobs.wait((await job).id);
    },
    install(name, app = 'notes', values = {}, actor = ADMIN) {
      return kit.done(current.stacks.install(actor, { repo: 'store', app, name, values }));
    },
    async updateStore(change) {
      change(join(tmp, 'repo'));
      await remote.commit('apps', join(tmp, 'repo'));
      const job = await setupJobs.wait(catalogue.sync(ADMIN, 'store').id);
      if (job.state !== 'succeeded') throw new Error(`the kit's repo did not sync: ${job.error ?? ''}`);
    },
    tree() {
      const out = new Map<string, FileState | { link: string } | 'dir'>();
      const walk = (dir: string) => {
        for (const e of io.list(dir)) {
          const p = join(dir, e.name);
          if (e.kind === 'link') out.set(p, { link: io.readlink(p) ?? '' });
          else if (e.kind === 'dir') {
            out.set(p, 'dir');
            walk(p);
          } else out.set(p, { text: io.read(p)?.toString('utf8') ?? '', mode: io.stat(p)?.mode ?? 0 });
        }
      };
      walk(paths.library);
      walk(join(paths.state, 'adopted'));
      return out;
    },
    read: (path) => io.read(path)?.toString('utf8') ?? null,
    write(path, text, mode = 0o644) {
      io.mkdir(dirname(path), 0o755);
      io.write([{ path, content: text, mode }]);
    },
    env: (name) => parseEnv(kit.read(join(paths.library, name, '.env')) ?? ''),
    async running(project) {
      const out: Record<string, string> = {};
      for (const c of await engine.listContainers({ project })) if (c.service && c.state === 'running') out[c.service] = c.id;
      return out;
    },
    async crash(point, start) {
      const dying = life;
      const jobs = current.jobs;
      const crashed = new Promise<'crashed'>((resolve) =>
        armFailpoint(point, () => {
          dying.dead = true;
          resolve('crashed');
        }),
      );
      // A job that ends before the point is reached is a test that never crashed: said, not waited for forever.
      const ended = new Promise<'ended'>((resolve) => jobs.onEnd(() => resolve('ended')));
      const job = await start();
      if ((await Promise.race([crashed, ended])) === 'ended') {
        armFailpoint(null);
        throw new Error(`the job ended before Kade reached the failpoint ${point}: ${JSON.stringify(jobs.get(job.id))}`);
      }
      return job;
    },
    async restart() {
      life.dead = true;
      armFailpoint(null);
      life = { dead: false };
      current = boot(life);
      const recovered = current.stacks.recoverInterrupted();
      await current.jobs.idle();
      return { recovered };
    },
    dispose() {
      armFailpoint(null);
      life.dead = true;
      db.close();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
  return kit;
}
