import { join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { SECRET_KEYS } from '../shared/settings-keys.ts';
import { createAuditRepo } from './audit/audit.repo.ts';
import { createAuditService } from './audit/audit.service.ts';
import { createAuditSubscriber } from './audit/audit.subscriber.ts';
import { createAuthModule } from './auth/auth-module.ts';
import { createProxyTrust } from './auth/proxy-trust.ts';
import { activeAuthSettings, createSsoConfigReader } from './auth/sso-config.ts';
import { archiveIO } from './backups/archive-io.ts';
import { createBackupsModule } from './backups/backups-module.ts';
import { backupStacks } from './backups/stack-target.ts';
import { createCatalogueService } from './catalogue/catalogue.service.ts';
import { createGitCli } from './catalogue/git-cli.ts';
import { createReposRepo } from './catalogue/repos.repo.ts';
import { type Config, ensureDirs, prepareDirs } from './config/config.ts';
import { createContainersService } from './containers/containers.service.ts';
import { detectOwnContainerId } from './containers/own-container.ts';
import { hasPdeathsig, setChildRegistry } from './core/children.ts';
import { createEventBus, type EventBus } from './core/events.ts';
import type { Logger } from './core/logger.ts';
import { openDb } from './db/db.ts';
import { sealStoredSecrets } from './db/seal-stored.ts';
import { openSecretBox } from './db/secret-box.ts';
import { createDoctor } from './doctor/doctor.service.ts';
import { createComposeCli } from './engine/compose-cli.ts';
import { createDockerEngine } from './engine/docker-engine.ts';
import type { Engine } from './engine/engine.ts';
import { createEngineCheck } from './engine/engine-check.ts';
import { createFleet } from './engine/fleet.ts';
import { createHostHelper } from './engine/host-helper.ts';
import { createEngineRestart } from './host/engine-restart.ts';
import { createHostService } from './host/host.service.ts';
import { cachedProbe, createHostProbe } from './host/host-probe.ts';
import { createProbeImagePuller } from './host/probe-image.ts';
import { createHttpApp } from './http/app.ts';
import type { AppEnv } from './http/context.ts';
import type { FollowLimits } from './http/sse.ts';
import { createJobLogStore } from './jobs/job-log.ts';
import { createJobsRepo } from './jobs/jobs.repo.ts';
import { createJobsService } from './jobs/jobs.service.ts';
import { createNetworksRepo } from './networks/networks.repo.ts';
import { createNetworksService, hostSubnets } from './networks/networks.service.ts';
import { createSubnetPool } from './networks/subnet-pool.ts';
import { createNotificationsModule, type NotificationsModule, type NotifyOptions } from './notifications/notifications-module.ts';
import { createPathMove } from './paths/path-move.ts';
import { createSelfUpdateEngine } from './self-update/docker.ts';
import { createSelfUpdate } from './self-update/self-update.service.ts';
import { createSettingsModule, foldersInUse } from './settings/settings-module.ts';
import { createWizardService } from './settings/wizard.service.ts';
import { createAppIndex } from './stacks/app-index.ts';
import { stackNames } from './stacks/read/listing.ts';
import { createStacksService, type StacksDeps } from './stacks/stacks.service.ts';
import { createStacksCore } from './stacks/stacks-core.ts';
import { createImageTags } from './updates/image-tags.ts';
import { createRegistryClient } from './updates/registry-client.ts';
import { createUpdateResultsRepo } from './updates/update-results.repo.ts';
import { createUpdatesService } from './updates/updates.service.ts';
import { createUpdateChecks, registryCredentials } from './updates/updates-module.ts';

export interface Kade {
  app: OpenAPIHono<AppEnv>;
  /** The domain event bus; tests emit on it to prove what subscribers do with an event. */
  events: EventBus;
  /** Engine log streams held open for followers now; the load tests read it. */
  openLogStreams(): number;
  /** Tests wait for notifications under way and run the periodic checks (disk, stuck jobs) at once. */
  notifications: Pick<NotificationsModule, 'idle' | 'checkDisk' | 'checkStuck'>;
  close(): Promise<void>;
}

export interface KadeOptions {
  peerAddress?: (req: Request, env: unknown) => string | undefined;
  /** Kade's own container id (or prefix); detected from /proc and the host name when not given. */
  ownContainerId?: string | null;
  /** Delay of the first background update check after the start; daily after that. */
  firstUpdateCheckMs?: number;
  /** Extra labels on the shared networks Kade creates (tests mark theirs for cleanup). */
  networkLabels?: Record<string, string>;
  /** Bounds of followed log streams; tests shorten the slow-reader deadlines. */
  follow?: FollowLimits;
  /** Notification timings and the SMTP trust; tests shorten them and trust their own mail server. */
  notify?: NotifyOptions;
  /**
   * Builds Kade again in this process (the path move, after it saved the new folders): the runner closes
   * this instance and creates a new one on the same server. Without it, the change applies at the next start.
   */
  restart?: () => void;
}

/** The composition root: config → db → adapters → services → http; each floor a function of its own below. */
export function createKade(config: Config, logger: Logger, opts: KadeOptions = {}): Kade {
  const base = openBase(config, logger);
  const adapters = createAdapters(config, base);
  const apps = createAppServices(config, opts, base, adapters);
  const jobs = createJobServices(config, opts, base, adapters, apps);
  // SPEC Limits: a daily background check of the stacks' images; the first one soon after the start.
  apps.stackUpdates.schedule({ firstDelayMs: opts.firstUpdateCheckMs ?? 5 * 60_000 });
  apps.backups.startSchedule();
  jobs.notifications.start();
  if (adapters.settings.autoSyncOnBoot()) adapters.catalogue.syncAll(null);
  const tools = createToolServices(config, base, adapters, apps, jobs);
  const app = createHttp(config, opts, { ...base, ...adapters, ...apps, ...jobs, ...tools });
  return {
    app,
    events: base.events,
    openLogStreams: tools.containers.openLogStreams,
    notifications: jobs.notifications,
    async close() {
      adapters.fleet.stop();
      apps.stackUpdates.stop();
      await jobs.notifications.stop();
      apps.backups.stopSchedule();
      await adapters.jobs.idle();
      base.db.close();
    },
  };
}

/** Kade's own state: its folders, the children a dead Kade left, the database with its sealed secrets, the event bus and the audit log. */
function openBase(config: Config, logger: Logger) {
  prepareDirs(config);
  // Before anything else: children a killed Kade left running (a compose `up`) are ended; recovery waits for them.
  const survivors = setChildRegistry(join(config.stateDir, 'children'));
  if (survivors.length > 0) logger.warn({ survivors }, 'ended processes the last Kade started and left running');
  if (!hasPdeathsig()) logger.warn('setpriv --pdeathsig is not available (util-linux): child processes are ended by the watchdog and at the next start only');
  const clock = () => new Date();
  const db = openDb(join(config.stateDir, 'kade.db'));
  // Secrets in the database are sealed with a key in its own 0600 file; plain ones an older version wrote are sealed now.
  const box = openSecretBox(config.stateDir);
  const sealed = sealStoredSecrets(db, box, SECRET_KEYS);
  if (sealed > 0) logger.info({ sealed }, 'secrets stored in plain text by an older version are now encrypted');
  const events = createEventBus(logger);
  const auditRepo = createAuditRepo(db);
  createAuditSubscriber(auditRepo, events, clock);
  const audit = createAuditService({ repo: auditRepo, clock });
  return { logger, clock, db, box, events, audit };
}

type Base = ReturnType<typeof openBase>;

/**
 * The adapters (engine, compose, git, the host probe) and what the domain services stand on: the folders in use,
 * the index of the apps' folders, the settings, the jobs, the container model, the users and the catalogue.
 */
function createAdapters(config: Config, b: Base) {
  const { db, box, events, logger, clock } = b;
  const engine = createDockerEngine(config.engine);
  // Stored settings win over the boot config: the folders when Kade starts, the time zone and auto-sync as they are now.
  // Single sign-on from the SVC_AUTH_PROXY_* environment (or a row an older version stored), shown read-only in the settings.
  const sso = createSsoConfigReader(db, logger, config.proxy);
  const settingsDeps = { db, box, events, logger, config, activeAuth: () => activeAuthSettings(sso) };
  const folders = foldersInUse(settingsDeps);
  // What other modules ask of the installed apps, read from their folders alone (`.svc.json`, adopted apps' links):
  // built before the settings, the networks, the subnet pool and the stacks, which ask it instead of each other.
  const apps = createAppIndex({ libraryDir: folders.LIBRARY_DIR, stateDir: config.stateDir });
  const settings = createSettingsModule({ ...settingsDeps, pathsInUse: folders, networkUsers: apps.usingNetwork });
  ensureDirs([
    ['LIBRARY_DIR', folders.LIBRARY_DIR],
    ['DATA_DIR', folders.DATA_DIR],
    ['BACKUP_DIR', folders.BACKUP_DIR],
  ]);
  const jobs = createJobsService({ repo: createJobsRepo(db), logs: createJobLogStore(config.jobsDir), events, logger, clock });
  // The app list answers from a model of the containers the engine's events keep current; Kade's own changes
  // (a job ended, any domain event such as a container operation) make the next list ask the engine first.
  const fleet = createFleet({ engine, logger });
  jobs.onEnd(() => fleet.invalidate());
  events.subscribe(() => fleet.invalidate());
  fleet.start();
  const catalogue = createCatalogueService({
    repos: createReposRepo(db, box),
    git: createGitCli(),
    jobs,
    events,
    cacheDir: join(config.stateDir, 'cache'),
    version: config.version,
    clock,
  });
  return {
    engine,
    compose: createComposeCli(config.engine, config.compose),
    sso,
    folders,
    apps,
    settings,
    jobs,
    fleet,
    catalogue,
    probe: createProbe(config, engine, logger),
    ...createAuthModule({ db, box, events, clock, ssoConfig: sso.read }),
  };
}

type Adapters = ReturnType<typeof createAdapters>;

/** The host probe; its small image is pulled when the engine lacks it: looked for at start, pulled again when a probe misses it. */
function createProbe(config: Config, engine: Engine, logger: Logger) {
  const probeImage = createProbeImagePuller({
    engine,
    image: config.probeImage,
    pull: config.probePull,
    onPulled: () => logger.info({ probe: config.probeImage }, 'pulled the host probe image'),
    onFailure: (message) => logger.warn({ probe: config.probeImage }, message),
  });
  void probeImage.ensure();
  return cachedProbe(createHostProbe({ engine, image: config.probeImage, onImageMissing: () => void probeImage.ensure() }), {
    onFailure: (r) => logger.warn({ probe: config.probeImage }, `host probe failed: ${r.message}`),
  });
}

/**
 * The services of the apps, each built after what it asks: the subnet pool and the networks on the index of the
 * apps' folders, the stacks' core (store, gate), the backups on its port, the stacks service on the backups' ports.
 */
function createAppServices(config: Config, opts: KadeOptions, b: Base, a: Adapters) {
  const { db, events, logger, clock } = b;
  const { engine, settings, folders, jobs } = a;
  const subnets = createSubnetPool({
    pool: config.appSubnetPool,
    blockPrefix: 26,
    engineSubnets: async () => (await engine.listNetworks()).flatMap((n) => n.subnets.map((s) => s.subnet)),
    recorded: a.apps.recordedSubnets,
    hostSubnets: async () => (await hostSubnets({ probe: a.probe })).map((h) => h.subnet),
  });
  // The networks ask the index which apps are on them; the apps join networks through the networks service.
  const networks = createNetworksService({
    repo: createNetworksRepo(db),
    engine,
    probe: a.probe,
    settings,
    pool: subnets,
    stacksOn: a.apps.usingNetwork,
    stackOfProject: a.apps.stackOfProject,
    events,
    clock,
    ...(opts.networkLabels ? { labels: opts.networkLabels } : {}),
  });
  const stackUpdates = createUpdateChecks({ engine, settings, libraryDir: folders.LIBRARY_DIR, logger, events, clock, store: createUpdateResultsRepo(db) });
  // A deleted app's cached update state must not show on an app installed later under its name.
  events.subscribe((e) => e.type === 'stack.deleted' && e.target !== undefined && stackUpdates.forget(e.target));
  const stackDeps = stacksDeps(config, b, a, { networks, subnets, updateState: stackUpdates.known, lookAtUpdates: stackUpdates.look });
  // The store, the gate and the use cases' context first: the backups stand on its port, the stacks on the backups'.
  const stacksCore = createStacksCore(stackDeps);
  const backups = createBackupsModule({
    stacks: backupStacks(stacksCore.forBackups, engine),
    archive: archiveIO,
    settings,
    paths: folders,
    stateDir: config.stateDir,
    engine,
    jobs,
    events,
    logger,
    clock,
    apps: () => stackNames(folders.LIBRARY_DIR),
  });
  const stacks = createStacksService({
    ...stackDeps,
    core: stacksCore,
    backupFirst: backups.backupFirst,
    // A reconfigure's backup first, and its dumps loaded back when the change fails after it touched a database.
    backupForChange: { make: backups.beforeChange, loadDumps: backups.loadDumps },
  });
  return { networks, stackUpdates, backups, stacks };
}

type AppServices = ReturnType<typeof createAppServices>;

/** What the stacks are built on: the folders in use, the settings as they are now, the adapters and the ports of other modules. */
function stacksDeps(config: Config, b: Base, a: Adapters, more: Pick<StacksDeps, 'networks' | 'subnets' | 'updateState' | 'lookAtUpdates'>): StacksDeps {
  const { settings, folders } = a;
  return {
    // The mounted BASE_DIR of the boot config: an adopted folder must be visible to Kade.
    baseDir: config.baseDir,
    stateDir: config.stateDir,
    engineSocket: 'socketPath' in config.engine ? config.engine.socketPath : null,
    libraryDir: folders.LIBRARY_DIR,
    dataDir: folders.DATA_DIR,
    backupDir: folders.BACKUP_DIR,
    allowedHostDirs: () => settings.allowedHostDirs(),
    uid: config.uid,
    gid: config.gid,
    timezone: () => settings.timezone(),
    allowPrivileged: () => settings.allowPrivileged(),
    engine: a.engine,
    fleet: a.fleet,
    compose: a.compose,
    jobs: a.jobs,
    catalogue: a.catalogue,
    events: b.events,
    logger: b.logger,
    clock: b.clock,
    ...more,
  };
}

/**
 * The notifications (before the recovery: a job it resolves may fail and ask for a message), the path move, the
 * engine restart, the recovery of the jobs a crash cut off, and the image updates.
 */
function createJobServices(config: Config, opts: KadeOptions, b: Base, a: Adapters, s: AppServices) {
  const { events, logger } = b;
  const { engine, jobs, settings } = a;
  const { stacks, backups } = s;
  const notifications = createNotificationsModule({
    db: b.db,
    box: b.box,
    events,
    logger,
    clock: b.clock,
    engine,
    jobs,
    settings,
    disk: () => backups.disk(),
    stackOfProject: a.apps.stackOfProject,
    ...(opts.notify ? { options: opts.notify } : {}),
  });
  const paths = createPathMove({
    settings,
    ...stacks.forPathMove,
    stateDir: config.stateDir,
    engine,
    jobs,
    events,
    restart: () => opts.restart?.(),
  });
  const ownContainerId = opts.ownContainerId === undefined ? detectOwnContainerId() : opts.ownContainerId;
  const engineRestart = createEngineRestart({ helper: createHostHelper(engine, config.probeImage), engine, jobs, events, ownContainerId });
  // Before any request: jobs a crash cut off are resolved (a reconfigure or restore rolled back, `up -d`) while holding their app's slot.
  const interrupted = stacks.recoverInterrupted({ ...backups.resolvers, ...paths.resolvers, ...engineRestart.resolvers });
  if (interrupted > 0) logger.warn({ interrupted }, 'jobs cut off by the last restart: resolving them');
  const updates = createUpdatesService({
    stackUpdates: s.stackUpdates,
    ...stacks.forUpdates,
    jobs,
    engine,
    events,
    credentials: () => registryCredentials(settings),
    // API.md: an update makes a backup first; a failed backup is a warning and the update goes on.
    beforeUpdate: (p, ctx) => backups.backupFirst(a.apps.stackOfProject(p.name) ?? p.name, 'update', ctx, null),
  });
  return { notifications, paths, ownContainerId, engineRestart, updates };
}

type JobServices = ReturnType<typeof createJobServices>;

/** The services of the screens around the apps: the wizard, the containers, the host, the doctor, image tags, Kade's own update. */
function createToolServices(config: Config, b: Base, a: Adapters, s: AppServices, j: JobServices) {
  const { engine, settings, catalogue } = a;
  const { ownContainerId } = j;
  const socketPath = 'socketPath' in config.engine ? config.engine.socketPath : null;
  const doctor = createDoctor({
    engine,
    compose: a.compose,
    paths: a.folders,
    storedPaths: () => settings.storedPaths(),
    rules: { mountedBase: config.baseDir, engineSocket: socketPath ?? undefined, uid: config.uid },
    svcUid: config.uid,
    svcGid: config.gid,
    processUid: process.getuid?.() ?? null,
    ownContainerId,
    probeImage: config.probeImage,
    storeApps: () => catalogue.apps().length,
    refusedFiles: () => s.stacks.refusedFiles(),
  });
  const selfUpdate = createSelfUpdate({
    engine: createSelfUpdateEngine(engine),
    registry: createRegistryClient({ credentials: () => registryCredentials(settings) }),
    jobs: a.jobs,
    events: b.events,
    channel: () => settings.updateChannel(),
    credentials: () => registryCredentials(settings),
    ownContainerId,
    socketPath,
    stateDir: config.stateDir,
    version: config.version,
    healthSeconds: config.updateHealthSeconds,
  });
  return {
    wizard: createWizardService({ settings, catalogue, events: b.events }),
    containers: createContainersService({ store: a.apps, engine, events: b.events, ownContainerId }),
    host: createHostService({ engine, probe: a.probe }),
    doctor,
    imageTags: createImageTags({ engine, credentials: () => registryCredentials(settings) }),
    selfUpdate,
    engineCheck: createEngineCheck({ engine, compose: a.compose, socketPath }),
  };
}

/** The HTTP API and the web interface over the services. */
function createHttp(
  config: Config,
  opts: KadeOptions,
  k: Base & Adapters & AppServices & JobServices & ReturnType<typeof createToolServices>,
): OpenAPIHono<AppEnv> {
  return createHttpApp(
    {
      auth: k.auth,
      catalogue: k.catalogue,
      stacks: k.stacks,
      containers: k.containers,
      jobs: k.jobs,
      engineCheck: k.engineCheck,
      engineRestart: k.engineRestart,
      audit: k.audit,
      users: k.users,
      settings: k.settings,
      wizard: k.wizard,
      host: k.host,
      networks: k.networks,
      paths: k.paths,
      notifications: k.notifications.service,
      backups: k.backups,
      updates: k.updates,
      imageTags: k.imageTags,
      doctor: k.doctor,
      selfUpdate: k.selfUpdate,
    },
    {
      logger: k.logger,
      version: config.version,
      webDir: config.webDir,
      prefill: { dataDir: k.folders.DATA_DIR, uid: config.uid, gid: config.gid },
      ...(opts.peerAddress ? { peerAddress: opts.peerAddress } : {}),
      proxyTrust: createProxyTrust(() => [...config.proxy.trusted, ...(k.sso.read()?.proxies ?? [])]),
      hosts: { bind: config.bind, allowed: config.allowedHosts },
      ...(opts.follow ? { follow: opts.follow } : {}),
    },
  );
}
