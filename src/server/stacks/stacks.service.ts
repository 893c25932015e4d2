import { join } from 'node:path';
import { parse } from 'yaml';
import type { JobT, StackUpdateInfo } from '../../shared/api.ts';
import type { FilesVerdictT } from '../../shared/stack-config.ts';
import type { FieldValue, TemplateFileT } from '../../shared/template.ts';
import type { CatalogueService } from '../catalogue/catalogue.service.ts';
import { requireRole } from '../core/authorize.ts';
import { AppError, notFound } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import { failpoint } from '../core/failpoint.ts';
import type { Logger } from '../core/logger.ts';
import type { Compose, ComposeProject } from '../engine/compose.ts';
import type { Engine } from '../engine/engine.ts';
import type { Fleet } from '../engine/fleet.ts';
import type { JobContext, JobsService } from '../jobs/jobs.service.ts';
import type { SubnetPool } from '../networks/subnet-pool.ts';
import type { BindRules } from '../settings/bind-rules.ts';
import { stringifyCompose } from '../templates/yaml-out.ts';
import { type ComposeGate, createComposeGate } from './gate/compose-gate.ts';
import { refusedFilesOf } from './gate/file-verdicts.ts';
import { enforceCompose, pathFieldOf } from './policy/bind-policy.ts';
import { enforceComposePolicy, type PrivilegedPolicy } from './policy/compose-policy.ts';
import { createHostPathReview } from './policy/host-path-review.ts';
import { createAppPowers } from './policy/powers.ts';
import { createAppList } from './read/app-list.ts';
import { adoptedProjects, NEVER_CHECKED, sharedListing } from './read/listing.ts';
import { type AppData, appDataOf, appDataValues, removeAppFolder } from './store/app-data.ts';
import { diskIO } from './store/disk-io.ts';
import { parseEnv } from './store/env-file.ts';
import { createSeals } from './store/file-seal.ts';
import type { FolderIO } from './store/folder-io.ts';
import { checkName, createStackDirs, type StackDirs, type StackLocation } from './store/stack-dir.ts';
import { createStackStore } from './store/stack-store.ts';
import { createAdopt } from './use-cases/adopt.ts';
import { applySubnets, projectNetworks, serviceJoins } from './use-cases/choices.ts';
import { createConnect } from './use-cases/connect.ts';
import { createCredentials } from './use-cases/credentials.ts';
import { createEditors } from './use-cases/editors.ts';
import { installFiles, type PreparedInstall, prepareInstall } from './use-cases/install.ts';
import { createReconfigure } from './use-cases/reconfigure.ts';
import { createRecovery } from './use-cases/recovery.ts';
import type { BackupForChange, NetworksPort, StackContext } from './use-cases/stack-context.ts';
import { waitUntilUp } from './use-cases/wait.ts';

export interface StacksDeps {
  baseDir: string;
  libraryDir: string;
  dataDir: string;
  /** SVC_DATA: snapshots, adopted apps' metadata and short-lived files live here. */
  stateDir: string;
  /** The engine's unix socket (never mountable into an app); null for a tcp engine. */
  engineSocket: string | null;
  /** BACKUP_DIR: never mountable into an app. */
  backupDir: string;
  /** ALLOWED_HOST_DIRS as it is now: host folders an admin allows apps to bind (bind-policy.ts). */
  allowedHostDirs: () => readonly string[];
  uid: number;
  gid: number;
  timezone: () => string;
  engine: Engine;
  compose: Compose;
  jobs: JobsService;
  catalogue: CatalogueService;
  events: EventBus;
  logger: Logger;
  clock: () => Date;
  /** The last known update state the list shows and its time (updates/); never checked when absent. */
  updateState?: (name: string) => StackUpdateInfo;
  /** Told the apps someone looks at: a stale update state is refreshed in the background (updates/). */
  lookAtUpdates?: (names: readonly string[]) => void;
  /** ALLOW_PRIVILEGED_APPS as it is now: who may install an app with powers over the host (compose-policy.ts). */
  allowPrivileged?: () => PrivilegedPolicy;
  /** The shared networks apps join (networks/); without it no network is known. */
  networks?: NetworksPort;
  /** Kade's own address pool for the apps' project networks; without it the engine's default pools are used. */
  subnets?: SubnetPool;
  /** The containers of compose projects kept current by the engine's events (engine/fleet.ts); without it every list asks the engine. */
  fleet?: Pick<Fleet, 'list' | 'version'>;
  /** A backup inside another job of the app (delete with backup=1); a failure is the backup's to log, the job goes on. */
  backupFirst?: (stack: string, reason: string, ctx: JobContext, actor: Actor) => Promise<void>;
  /** The backup a reconfigure makes first and the dumps it loads back on a failure (backups/); without it, the file snapshot only. */
  backupForChange?: BackupForChange;
  /** The file operations on the apps' folders, seals and snapshots (store/folder-io.ts); the disk when absent, `memoryIO()` in unit tests. */
  io?: FolderIO;
  /** How often an `up` asks the engine whether the containers run, in ms (500 when absent; unit tests over the fake engine ask at once). */
  upPollMs?: number;
}

const NO_NETWORKS: NetworksPort = {
  isKade: () => false,
  ensure: async (name) => {
    throw notFound('network', name);
  },
  subnetOf: async () => ({ subnet: null, range: null, gateway: null }),
};

export type StackOp = 'start' | 'stop' | 'restart';

/** The gate's refusals: the files changed, or what they ask for is refused as the acting user. */
const REFUSALS = new Set(['stack_files_refused', 'compose_refused', 'app_powers_refused', 'forbidden_path', 'compose_invalid']);

/** Installed apps: their folders under LIBRARY_DIR are the truth; the engine says how they run. */
export function createStacksService(d: StacksDeps) {
  const listing = d.fleet ? d.fleet.list : sharedListing(d.engine);
  const io = d.io ?? diskIO();
  const upWait = { timeoutMs: 60_000, ...(d.upPollMs === undefined ? {} : { intervalMs: d.upPollMs }) };
  const seals = createSeals(io, join(d.stateDir, 'seals'));
  const dirOf = (name: string) => join(d.libraryDir, name);
  const binds: BindRules = {
    dataDir: d.dataDir,
    libraryDir: d.libraryDir,
    stateDir: d.stateDir,
    backupDir: d.backupDir,
    engineSocket: d.engineSocket,
    allowedHostDirs: d.allowedHostDirs,
  };
  const update = d.updateState ?? (() => NEVER_CHECKED);
  const allowPrivileged = d.allowPrivileged ?? ((): PrivilegedPolicy => 'admins');
  /** A gate judging with other folders than those in use (the path move starts apps from the new ones). */
  // Apps from before seals existed, found at start: sealed as found the first time they are judged (compose-gate.ts),
  // so a start with hundreds of them reads no compose file.
  const fromBefore = new Set(
    createStackDirs(io, d.libraryDir, d.stateDir)
      .names()
      .filter((name) => !seals.exists(name)),
  );
  const gateFor = (f: { LIBRARY_DIR: string; DATA_DIR: string; BACKUP_DIR: string }): ComposeGate =>
    createComposeGate({
      fromBefore: (app) => fromBefore.has(app),
      compose: d.compose,
      io,
      seals,
      binds: { ...binds, libraryDir: f.LIBRARY_DIR, dataDir: f.DATA_DIR, backupDir: f.BACKUP_DIR },
      allowPrivileged,
      events: d.events,
      clock: d.clock,
    });
  const gate = gateFor({ LIBRARY_DIR: d.libraryDir, DATA_DIR: d.dataDir, BACKUP_DIR: d.backupDir });
  const compose = gate.compose;
  /** The owner of the apps' folders in `libraryDir`, sealing what it writes through `via` (the path move's new folders). */
  const storeFor = (libraryDir: string, via: ComposeGate) => createStackStore({ io, libraryDir, stateDir: d.stateDir, seals, sealer: via, clock: d.clock });
  const store = storeFor(d.libraryDir, gate);
  /** The read side (listing, app list) sees the apps' locations in the store. */
  const dirs: StackDirs = store;

  const project = (name: string): ComposeProject => store.project(store.locate(name));

  const appList = createAppList({ ...d, dirs, listing, update, ...(d.lookAtUpdates ? { look: d.lookAtUpdates } : {}) });

  /** The apps whose files compose would not run now, with why (the doctor lists them). */
  const refusedFiles = () => refusedFilesOf(store, gate);

  /** GET /api/stacks/<name>/files: the refusal every compose run of the app would get now, or ok. */
  function filesVerdict(actor: Actor, name: string): FilesVerdictT {
    requireRole(actor, 'viewer', "the state of an app's files");
    const loc = store.locate(name);
    const why = loc.composeFile ? gate.verdict(store.project(loc)) : null;
    return { ok: why === null, refusal: why ? { code: why.code, message: why.message, params: why.params } : null };
  }

  /** An admin's "accept the files as they are now" (adopted apps, folders edited by hand), judged first and audited. */
  function acceptFiles(actor: Actor, name: string, confirm?: readonly string[]): { accepted: string } {
    requireRole(actor, 'admin', "accepting an app's files");
    const loc = store.locate(name);
    d.jobs.checkFree(name);
    gate.accept(project(name), actor, confirm);
    return { accepted: loc.name };
  }

  function install(
    actor: Actor,
    req: { repo: string; app: string; name: string; values: Record<string, FieldValue>; confirm_outside_paths?: string[] | undefined },
  ): JobT {
    checkName(req.name);
    if (store.taken(req.name)) throw new AppError('name_taken', `an app named '${req.name}' exists already`, { params: { name: req.name }, fields: ['name'] });
    const loaded = d.catalogue.loadApp(req.repo, req.app);
    const prepared = prepareInstall({
      name: req.name,
      source: { repo: req.repo, app: req.app, commit: loaded.repo.commit },
      template: loaded.template,
      compose: loaded.compose,
      values: appDataValues(loaded.template, req.values, { dataDir: d.dataDir, name: req.name }),
      prefill: { dataDir: d.dataDir, uid: d.uid, gid: d.gid },
      timezone: d.timezone(),
      now: d.clock(),
    });
    enforceComposePolicy(actor, prepared.render.compose, { env: prepared.render.env, allow: allowPrivileged() });
    enforceCompose(prepared.render.compose, prepared.render.env, { app: req.name, stackDir: dirOf(req.name) }, binds, {
      actor,
      confirm: req.confirm_outside_paths,
      events: d.events,
      fieldOf: pathFieldOf(loaded.template, prepared.values),
    });
    return d.jobs.start({ kind: 'stack.install', stack: req.name, actor }, async (ctx) => {
      for (const s of prepared.secrets) ctx.mask(s);
      ctx.log(`installing ${req.repo}/${req.app} as '${req.name}'`);
      if (store.taken(req.name)) throw new AppError('name_taken', `an app named '${req.name}' exists already`, { params: { name: req.name } });
      try {
        const withSubnets = await planSubnets(req.name, prepared);
        const subnets = Object.entries(withSubnets.meta.subnets ?? {});
        if (subnets.length > 0) ctx.log(`networks of the app: ${subnets.map(([n, s]) => `${n} ${s}`).join(', ')}`);
        // Written into a temp folder, renamed into place and sealed as this user's (judged above).
        const loc = store.create(req.name, installFiles(withSubnets, await compose.variant()), actor);
        ctx.log(`wrote ${loc.dir}`);
        const p = store.project(loc);
        failpoint('install.folder');
        ctx.progress(0.2);
        await compose.validate(p, { actor });
        await up(p, ctx, actor);
        d.events.emit({ type: 'stack.installed', actor, source: 'store', target: req.name, status: 'ok', detail: { repo: req.repo, app: req.app } });
      } catch (err) {
        d.events.emit({ type: 'stack.installed', actor, source: 'store', target: req.name, status: 'failed', detail: { repo: req.repo, app: req.app } });
        throw err;
      }
    });
  }

  /**
   * The policies of an install on an app's files that come from elsewhere (a backup being restored), judged as the
   * actor: an old archive brings back no power or host folder the actor could not install today.
   */
  function judgeFiles(actor: Actor, name: string, files: { compose: string; env: string }, confirm?: readonly string[]): void {
    const env = parseEnv(files.env);
    enforceComposePolicy(actor, files.compose, { env, allow: allowPrivileged() });
    enforceCompose(files.compose, env, { app: name, stackDir: dirOf(name) }, binds, { actor, confirm, events: d.events });
  }

  /** Each network of the app's compose project gets a block of Kade's own pool (subnet-pool.ts), kept in `.svc.json`. */
  async function planSubnets(name: string, prepared: PreparedInstall): Promise<PreparedInstall> {
    if (!d.subnets) return prepared;
    const doc = parse(prepared.render.compose) as Record<string, unknown>;
    const wanted = projectNetworks(doc);
    if (wanted.length === 0) return prepared;
    d.subnets.release(name);
    const subnets = await d.subnets.allocate(name, wanted);
    applySubnets(doc, subnets);
    return { ...prepared, render: { ...prepared.render, compose: stringifyCompose(doc) }, meta: { ...prepared.meta, subnets } };
  }

  /** The subnets recorded by every app, so Kade's pool never hands one out twice. */
  function recordedSubnets(): string[] {
    return store.names().flatMap((n) => {
      const loc = store.find(n);
      return Object.values((loc ? store.meta(loc)?.subnets : undefined) ?? {});
    });
  }

  /** The apps whose metadata joins a shared network. */
  function usingNetwork(network: string): string[] {
    return store.names().filter((n) => {
      const loc = store.find(n);
      const meta = loc ? store.meta(loc) : null;
      return meta !== null && (meta.networks.includes(network) || Object.keys(meta.services).some((s) => Object.hasOwn(serviceJoins(meta, s), network)));
    });
  }

  /** The app a compose project belongs to: its own name, or an adopted app's. */
  function stackOfProject(projectName: string): string | null {
    const adopted = adoptedProjects(store).get(projectName);
    if (adopted) return adopted;
    return store.find(projectName) ? projectName : null;
  }

  async function up(p: ComposeProject, ctx: JobContext, actor: Actor, via: ComposeGate = gate): Promise<void> {
    ctx.log('starting containers');
    await via.compose.up(p, { onOutput: (t) => ctx.log(t), actor });
    ctx.progress(0.7);
    await waitUntilUp(d.engine, p.name, ctx, upWait);
  }

  function operate(actor: Actor, name: string, op: StackOp): JobT {
    const p = project(name);
    return d.jobs.start({ kind: `stack.${op}`, stack: name, actor }, async (ctx) => {
      const out = { onOutput: (t: string) => ctx.log(t), actor };
      if (op === 'start') await up(p, ctx, actor);
      else if (op === 'stop') await stopEvenIfRefused(p, ctx, actor);
      else if ((await d.engine.listContainers({ project: p.name })).length === 0) {
        // `compose restart` refuses an app whose containers do not exist (an install cut off before `up`): create them.
        ctx.log('the app has no containers yet: creating them');
        await up(p, ctx, actor);
      } else {
        await compose.restart(p, out);
        await waitUntilUp(d.engine, p.name, ctx, upWait);
      }
      d.events.emit({ type: `stack.${op}`, actor, source: 'stacks', target: name, status: 'ok' });
    });
  }

  /** What "remove data" removes: the app's own data folder, bind sources below it and its project's named volumes. */
  async function dataOf(loc: StackLocation): Promise<AppData> {
    if (loc.adopted) return { folders: [], volumes: [] };
    const composeText = store.read(loc, 'compose') ?? '';
    const projectName = loc.composeFile ? store.project(loc).name : loc.name;
    const env = parseEnv(store.envText(loc));
    const existing = await d.engine.listVolumes({ project: projectName });
    return appDataOf({ name: loc.name, dataDir: d.dataDir, composeText, env, stackDir: loc.dir, project: projectName }, existing);
  }

  /** GET /api/stacks/<name>/data: exactly what DELETE with remove_data=1 removes (an adopted app: nothing). */
  async function data(actor: Actor, name: string): Promise<AppData> {
    requireRole(actor, 'operator', 'the data of an app');
    return dataOf(store.locate(name));
  }

  function remove(actor: Actor, name: string, opts: { removeData: boolean; backup?: boolean }): JobT {
    // Refused rather than ignored: a user who asked for a backup first must not lose the app without one.
    if (opts.backup && !d.backupFirst) {
      throw new AppError('not_implemented', 'a backup before delete is not available yet: delete without backup=1', {
        params: { feature: 'backup before delete' },
      });
    }
    const loc = store.locate(name);
    if (loc.adopted && opts.removeData) {
      throw new AppError('validation', `'${name}' was adopted: its data belongs to its own folder and is never removed by Kade`, { fields: ['remove_data'] });
    }
    return d.jobs.start({ kind: 'stack.delete', stack: name, actor }, async (ctx) => {
      if (opts.backup && d.backupFirst) await d.backupFirst(name, 'delete', ctx, actor);
      if (loc.adopted) {
        // Only the reference goes: the user's folder and the running containers stay as they are.
        store.remove(loc);
        ctx.log(`removed the reference ${loc.path}; ${loc.dir} and its containers are untouched`);
      } else {
        // Exactly what GET /api/stacks/<name>/data lists, read before anything goes.
        const data = opts.removeData ? await dataOf(loc) : null;
        if (loc.composeFile) {
          ctx.log('stopping and removing containers');
          await downEvenIfRefused(store.project(loc), ctx, actor);
        }
        ctx.progress(0.6);
        store.remove(loc);
        ctx.log(`removed ${loc.dir}`);
        for (const v of data?.volumes ?? []) {
          await d.engine.removeVolume(v);
          ctx.log(`removed the volume ${v}`);
        }
        for (const f of data?.folders ?? []) {
          removeAppFolder(f);
          ctx.log(`removed ${f}`);
        }
      }
      d.events.emit({
        type: 'stack.deleted',
        actor,
        source: 'stacks',
        target: name,
        status: 'ok',
        detail: { remove_data: opts.removeData, adopted: loc.adopted },
      });
    });
  }

  /**
   * Stopping never depends on the files: when the gate refuses them (changed outside Kade), the app's containers are
   * stopped through the engine by their project label, which reads no file.
   */
  async function stopEvenIfRefused(p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void> {
    try {
      await compose.stop(p, { onOutput: (t) => ctx.log(t), actor });
    } catch (err) {
      if (!(err instanceof AppError) || !REFUSALS.has(err.code)) throw err;
      ctx.log(`compose refused: ${err.message}`);
      ctx.log("stopping the app's containers through the engine instead");
      for (const c of await d.engine.listContainers({ project: p.name })) if (c.state === 'running') await d.engine.stopContainer(c.id);
    }
  }

  /** Removing an app never depends on its files either: its containers go through the engine when the gate refuses. */
  async function downEvenIfRefused(p: ComposeProject, ctx: JobContext, actor: Actor, via: ComposeGate = gate): Promise<void> {
    try {
      await via.compose.down(p, { onOutput: (t) => ctx.log(t), actor });
    } catch (err) {
      if (!(err instanceof AppError) || !REFUSALS.has(err.code)) throw err;
      ctx.log(`compose refused: ${err.message}`);
      ctx.log("removing the app's containers through the engine instead");
      for (const c of await d.engine.listContainers({ project: p.name })) {
        if (c.state === 'running') await d.engine.stopContainer(c.id);
        await d.engine.removeContainer(c.id);
      }
    }
  }

  /** Installed app names per source template (`repo/app`), from the stack files alone: no engine call. */
  function installedBySource(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const name of store.names()) {
      const loc = store.find(name);
      const source = loc ? store.meta(loc)?.source : null;
      if (!source) continue;
      const key = `${source.repo}/${source.app}`;
      out.set(key, [...(out.get(key) ?? []), name]);
    }
    return out;
  }

  const context: StackContext = {
    store,
    catalogue: d.catalogue,
    engine: d.engine,
    compose,
    gate,
    jobs: d.jobs,
    events: d.events,
    clock: d.clock,
    prefill: { dataDir: d.dataDir, uid: d.uid, gid: d.gid },
    timezone: d.timezone,
    baseDir: d.baseDir,
    engineSocket: d.engineSocket,
    binds,
    allowPrivileged,
    networks: d.networks ?? NO_NETWORKS,
    backups: d.backupForChange ?? null,
    up,
  };
  const reconfigure = createReconfigure(context);
  const editors = createEditors(context);
  const credentials = createCredentials(context, (name) => reconfigure.templateFields(store.locate(name)));
  const adopt = createAdopt(context);
  const recovery = createRecovery(context);
  const { connect } = createConnect(context);

  return {
    listJson: appList.listJson,
    get: appList.get,
    install,
    operate,
    remove,
    data,
    project,
    installedBySource,
    /** What an app from the store would get over the host; the install form's review shows it. */
    powers: createAppPowers({ catalogue: d.catalogue, prefill: context.prefill, timezone: d.timezone, allowPrivileged }),
    /** The host folders an app from the store would use that the bind policy refuses; the install form shows them while typing. */
    hostPaths: createHostPathReview({ catalogue: d.catalogue, prefill: context.prefill, timezone: d.timezone, binds, dirOf }),
    config: reconfigure.config,
    reconfigure: reconfigure.reconfigure,
    connect,
    /** `compose up` and wait until the containers run (the restore of a backup, the path move). */
    upProject: up,
    /** `compose down`, or the containers removed through the engine when the gate refuses the files. */
    downProject: downEvenIfRefused,
    /** `compose stop`, or the containers stopped through the engine when the gate refuses the files. */
    stopProject: stopEvenIfRefused,
    gateFor,
    storeFor,
    refusedFiles,
    filesVerdict,
    acceptFiles,
    /** The one gate in front of every compose run for an app (compose-gate.ts): backups, updates and the path move run compose through it. */
    gate,
    judgeFiles,
    /** The template an app was installed from, when its repo still has it (a backup reads its database declaration). */
    templateOf(name: string): TemplateFileT | null {
      const loc = store.locate(name);
      const found = reconfigure.sourceTemplate(loc, store.meta(loc));
      return typeof found === 'object' ? found.template : null;
    },
    usingNetwork,
    stackOfProject,
    recordedSubnets,
    credentials,
    adopt,
    ...editors,
    /** The one owner of the apps' folders (stacks/store/stack-store.ts): reads, writes, snapshots, swaps. */
    store,
    /** At start: resolves the jobs a crash cut off (recovery.ts); returns how many there were. */
    recoverInterrupted: recovery.recoverInterrupted,
  };
}

export type StacksService = ReturnType<typeof createStacksService>;
