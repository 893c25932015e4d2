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

/** The composition root: config → db → adapters → services → http. */
export function createKade(config: Config, logger: Logger, opts: KadeOptions = {}): Kade {
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

  const engine = createDockerEngine(config.engine);
  const compose = createComposeCli(config.engine, config.compose);
  const git = createGitCli();
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
  const { auth, users } = createAuthModule({ db, box, events, clock, ssoConfig: sso.read });
  const catalogue = createCatalogueService({
    repos: createReposRepo(db, box),
    git,
    jobs,
    events,
    cacheDir: join(config.stateDir, 'cache'),
    version: config.version,
    clock,
  });
  // The probe's small image is pulled when the engine lacks it: looked for at start, pulled again when a probe misses it.
  const probeImage = createProbeImagePuller({
    engine,
    image: config.probeImage,
    pull: config.probePull,
    onPulled: () => logger.info({ probe: config.probeImage }, 'pulled the host probe image'),
    onFailure: (message) => logger.warn({ probe: config.probeImage }, message),
  });
  void probeImage.ensure();
  const probe = cachedProbe(createHostProbe({ engine, image: config.probeImage, onImageMissing: () => void probeImage.ensure() }), {
    onFailure: (r) => logger.warn({ probe: config.probeImage }, `host probe failed: ${r.message}`),
  });
  // The networks ask the index which apps are on them; the apps join networks through the networks service.
  const subnets = createSubnetPool({
    pool: config.appSubnetPool,
    blockPrefix: 26,
    engineSubnets: async () => (await engine.listNetworks()).flatMap((n) => n.subnets.map((s) => s.subnet)),
    recorded: apps.recordedSubnets,
    hostSubnets: async () => (await hostSubnets({ probe })).map((h) => h.subnet),
  });
  const networks = createNetworksService({
    repo: createNetworksRepo(db),
    engine,
    probe,
    settings,
    pool: subnets,
    stacksOn: apps.usingNetwork,
    stackOfProject: apps.stackOfProject,
    events,
    clock,
    ...(opts.networkLabels ? { labels: opts.networkLabels } : {}),
  });
  const stackUpdates = createUpdateChecks({ engine, settings, libraryDir: folders.LIBRARY_DIR, logger, events, clock, store: createUpdateResultsRepo(db) });
  // A deleted app's cached update state must not show on an app installed later under its name.
  events.subscribe((e) => e.type === 'stack.deleted' && e.target !== undefined && stackUpdates.forget(e.target));
  const stackDeps: StacksDeps = {
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
    engine,
    fleet,
    compose,
    jobs,
    catalogue,
    events,
    logger,
    clock,
    updateState: stackUpdates.known,
    lookAtUpdates: stackUpdates.look,
    networks,
    subnets,
  };
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
  // Before the recovery below: a job it resolves may fail and ask for a message.
  const notifications = createNotificationsModule({
    db,
    box,
    events,
    logger,
    clock,
    engine,
    jobs,
    disk: () => backups.disk(),
    stackOfProject: apps.stackOfProject,
    settings,
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
  const engineRestart = createEngineRestart({
    helper: createHostHelper(engine, config.probeImage),
    engine,
    jobs,
    events,
    ownContainerId,
  });
  // Before any request: jobs a crash cut off are resolved (a reconfigure or restore rolled back, `up -d`) while holding their app's slot.
  const interrupted = stacks.recoverInterrupted({ ...backups.resolvers, ...paths.resolvers, ...engineRestart.resolvers });
  if (interrupted > 0) logger.warn({ interrupted }, 'jobs cut off by the last restart: resolving them');
  const updates = createUpdatesService({
    stackUpdates,
    ...stacks.forUpdates,
    jobs,
    engine,
    events,
    credentials: () => registryCredentials(settings),
    // API.md: an update makes a backup first; a failed backup is a warning and the update goes on.
    beforeUpdate: (p, ctx) => backups.backupFirst(apps.stackOfProject(p.name) ?? p.name, 'update', ctx, null),
  });
  // SPEC Limits: a daily background check of the stacks' images; the first one soon after the start.
  stackUpdates.schedule({ firstDelayMs: opts.firstUpdateCheckMs ?? 5 * 60_000 });
  backups.startSchedule();
  notifications.start();
  if (settings.autoSyncOnBoot()) catalogue.syncAll(null);
  const wizard = createWizardService({ settings, catalogue, events });
  const containers = createContainersService({ store: apps, engine, events, ownContainerId });
  const host = createHostService({ engine, probe });
  const doctor = createDoctor({
    engine,
    compose,
    paths: folders,
    storedPaths: () => settings.storedPaths(),
    rules: { mountedBase: config.baseDir, engineSocket: 'socketPath' in config.engine ? config.engine.socketPath : undefined, uid: config.uid },
    svcUid: config.uid,
    svcGid: config.gid,
    processUid: process.getuid?.() ?? null,
    ownContainerId,
    probeImage: config.probeImage,
    storeApps: () => catalogue.apps().length,
    refusedFiles: () => stacks.refusedFiles(),
  });

  const imageTags = createImageTags({ engine, credentials: () => registryCredentials(settings) });
  const selfUpdate = createSelfUpdate({
    engine: createSelfUpdateEngine(engine),
    registry: createRegistryClient({ credentials: () => registryCredentials(settings) }),
    jobs,
    events,
    channel: () => settings.updateChannel(),
    credentials: () => registryCredentials(settings),
    ownContainerId,
    socketPath: 'socketPath' in config.engine ? config.engine.socketPath : null,
    stateDir: config.stateDir,
    version: config.version,
    healthSeconds: config.updateHealthSeconds,
  });
  const app = createHttpApp(
    {
      auth,
      catalogue,
      stacks,
      containers,
      jobs,
      engineCheck: createEngineCheck({ engine, compose, socketPath: 'socketPath' in config.engine ? config.engine.socketPath : null }),
      engineRestart,
      audit,
      users,
      settings,
      wizard,
      host,
      networks,
      paths,
      notifications: notifications.service,
      backups,
      updates,
      imageTags,
      doctor,
      selfUpdate,
    },
    {
      logger,
      version: config.version,
      webDir: config.webDir,
      prefill: { dataDir: folders.DATA_DIR, uid: config.uid, gid: config.gid },
      ...(opts.peerAddress ? { peerAddress: opts.peerAddress } : {}),
      proxyTrust: createProxyTrust(() => [...config.proxy.trusted, ...(sso.read()?.proxies ?? [])]),
      hosts: { bind: config.bind, allowed: config.allowedHosts },
      ...(opts.follow ? { follow: opts.follow } : {}),
    },
  );
  return {
    app,
    events,
    openLogStreams: containers.openLogStreams,
    notifications,
    async close() {
      fleet.stop();
      stackUpdates.stop();
      await notifications.stop();
      backups.stopSchedule();
      await jobs.idle();
      db.close();
    },
  };
}
