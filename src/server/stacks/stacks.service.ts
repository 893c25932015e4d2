import { join } from 'node:path';
import type { StackUpdateInfo } from '../../shared/api.ts';
import type { CatalogueService } from '../catalogue/catalogue.service.ts';
import type { EventBus } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import type { Compose } from '../engine/compose.ts';
import type { Engine } from '../engine/engine.ts';
import type { Fleet } from '../engine/fleet.ts';
import type { JobsService } from '../jobs/jobs.service.ts';
import type { SubnetPool } from '../networks/subnet-pool.ts';
import { appIndexOn } from './app-index.ts';
import type { PrivilegedPolicy } from './policy/compose-policy.ts';
import { createHostPathReview } from './policy/host-path-review.ts';
import { createAppPowers } from './policy/powers.ts';
import { createStoreJudgement } from './policy/store-powers.ts';
import { createAppList } from './read/app-list.ts';
import { NEVER_CHECKED, sharedListing } from './read/listing.ts';
import { createStacksCore, type StacksCore } from './stacks-core.ts';
import type { FolderIO } from './store/folder-io.ts';
import { createAdopt } from './use-cases/adopt.ts';
import { createConnect } from './use-cases/connect.ts';
import { createCredentials } from './use-cases/credentials.ts';
import { createEditors } from './use-cases/editors.ts';
import { createFilesVerdict } from './use-cases/files-verdict.ts';
import { createInstall } from './use-cases/install.ts';
import { createOperate } from './use-cases/operate.ts';
import { createReconfigure } from './use-cases/reconfigure.ts';
import { createRecovery } from './use-cases/recovery.ts';
import { type BackupFirst, createRemove } from './use-cases/remove.ts';
import type { BackupForChange, NetworksPort, StackContext } from './use-cases/stack-context.ts';

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
  backupFirst?: BackupFirst;
  /** The backup a reconfigure makes first and the dumps it loads back on a failure (backups/); without it, the file snapshot only. */
  backupForChange?: BackupForChange;
  /** The file operations on the apps' folders, seals and snapshots (store/folder-io.ts); the disk when absent, `memoryIO()` in unit tests. */
  io?: FolderIO;
  /** How often an `up` asks the engine whether the containers run, in ms (500 when absent; unit tests over the fake engine ask at once). */
  upPollMs?: number;
  /**
   * The store, the gate and the use cases' context built before the service (`createStacksCore` with these deps), so
   * the backups can be built on its port first; built here when absent.
   */
  core?: StacksCore;
}

export type { StackOp } from './use-cases/operate.ts';

/** Installed apps: their folders under LIBRARY_DIR are the truth; the engine says how they run. The facade wires use cases. */
export function createStacksService(d: StacksDeps) {
  const core = d.core ?? createStacksCore(d);
  // The backups' port is given here: the core may have been built before the backups existed (kade.ts).
  const c: StackContext = { ...core.context, backups: d.backupForChange ?? null };
  const reconfigure = createReconfigure(c);
  return {
    ...readSide(d, c),
    ...createFilesVerdict(c),
    install: createInstall(c, { subnets: d.subnets }),
    operate: createOperate(c, { wait: core.wait }),
    ...createRemove(c, { backupFirst: d.backupFirst }),
    /** The compose project of an installed app; throws not_found / invalid_name. */
    project: (name: string) => c.store.project(c.store.locate(name)),
    /** What an app from the store would get over the host; the install form's review shows it. */
    powers: createAppPowers({ catalogue: d.catalogue, prefill: c.prefill, timezone: d.timezone, allowPrivileged: c.allowPrivileged }),
    /** Whether only an admin can install an app of the store with the powers it starts with; the store says "needs an admin". */
    needsAdmin: createStoreJudgement({ binds: c.binds, allowPrivileged: c.allowPrivileged }),
    /** The host folders an app from the store would use that the bind policy refuses; the install form shows them while typing. */
    hostPaths: createHostPathReview({
      catalogue: d.catalogue,
      prefill: c.prefill,
      timezone: d.timezone,
      binds: c.binds,
      dirOf: (name) => join(d.libraryDir, name),
    }),
    config: reconfigure.config,
    reconfigure: reconfigure.reconfigure,
    connect: createConnect(c).connect,
    credentials: createCredentials(c, (name) => reconfigure.templateFields(c.store.locate(name))),
    adopt: createAdopt(c),
    ...createEditors(c),
    /** At start: resolves the jobs a crash cut off (recovery.ts); returns how many there were. */
    recoverInterrupted: createRecovery(c).recoverInterrupted,
    /** The updates' port: an app's compose project and compose behind the gate (every run judged as its actor). */
    forUpdates: { project: (name: string) => c.store.project(c.store.locate(name)), compose: c.compose },
    /** The backups' port (backups/stack-target.ts), also built before the service: `StacksCore.forBackups`. */
    forBackups: core.forBackups,
    /** The path move's port: the folders in use and those of the copy, each with its gate. */
    forPathMove: core.forPathMove,
    /** The store itself, for the unit tests of the use cases (stacks-kit.ts) only: no module of Kade reads it, they get the ports above. */
    store: c.store,
  };
}

/** The read side: the app list and one app's view, and what other modules ask of the apps' folders. */
function readSide(d: StacksDeps, c: StackContext) {
  const listing = d.fleet ? d.fleet.list : sharedListing(d.engine);
  const update = d.updateState ?? (() => NEVER_CHECKED);
  const appList = createAppList({ ...d, dirs: c.store, listing, update, ...(d.lookAtUpdates ? { look: d.lookAtUpdates } : {}) });
  return { listJson: appList.listJson, get: appList.get, ...appIndexOn(c.store) };
}

export type StacksService = ReturnType<typeof createStacksService>;
