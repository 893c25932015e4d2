import type { CatalogueService } from '../../catalogue/catalogue.service.ts';
import type { Actor, EventBus } from '../../core/events.ts';
import type { ComposeProject } from '../../engine/compose.ts';
import type { Engine } from '../../engine/engine.ts';
import type { JobContext, JobsService } from '../../jobs/jobs.service.ts';
import type { BindRules } from '../../settings/bind-rules.ts';
import type { PrefillContext } from '../../templates/values.ts';
import type { ComposeGate, GatedCompose } from '../gate/compose-gate.ts';
import type { PrivilegedPolicy } from '../policy/compose-policy.ts';
import type { StackStore } from '../store/stack-store.ts';

/** What the stacks need of the shared networks (networks/networks.service.ts). */
export interface NetworksPort {
  /** SHARED_NETWORK or an APP_NETWORKS entry. */
  isKade(name: string): boolean;
  /** Creates the engine network from its plan when the engine does not have it yet. */
  ensure(name: string): Promise<void>;
  subnetOf(name: string): Promise<{ subnet: string | null; range: string | null; gateway: string | null }>;
}

/**
 * What a change of an app needs of the backups (backups/): a backup made inside the change's job before anything
 * changes (SPEC flows: reconfigure, "always: backup made"), and its database dumps loaded back when the change fails
 * after a database was touched. Wired to the backups by the composition root.
 */
export interface BackupForChange {
  /** Backs the app up inside the job (its slot held) and logs it; throws when no backup could be made. */
  make(stack: string, reason: string, ctx: JobContext, actor: Actor): Promise<{ id: string; databases: readonly { service: string; kind: string }[] }>;
  /**
   * Loads the dumps of backup `id` into the app's running databases (waiting until each answers), logging each;
   * the app's data folder stays as it is. Resolves to the services loaded; throws on the first that cannot be.
   */
  loadDumps(id: string, ctx: JobContext): Promise<string[]>;
}

/** What the parts of the stacks module share: built once by createStacksService. */
export interface StackContext {
  /** The one owner of the apps' folders: every read and write of an app's files goes through it. */
  store: StackStore;
  catalogue: CatalogueService;
  engine: Engine;
  /** Compose behind the gate: every run names its actor and is judged right before it (compose-gate.ts). */
  compose: GatedCompose;
  /** Admins accept files changed by hand (the store seals what Kade writes). */
  gate: ComposeGate;
  jobs: JobsService;
  events: EventBus;
  clock: () => Date;
  prefill: PrefillContext;
  timezone: () => string;
  /** BASE_DIR as Kade sees it: an adopted folder must lie below it. */
  baseDir: string;
  /** The engine's unix socket, never mountable into an app; null for a tcp engine. */
  engineSocket: string | null;
  /** The bind-path policy's folders: every writer of a compose document judges it with these (bind-policy.ts). */
  binds: BindRules;
  /** ALLOW_PRIVILEGED_APPS as it is now; every writer of a compose file checks it (compose-policy.ts). */
  allowPrivileged: () => PrivilegedPolicy;
  networks: NetworksPort;
  /** The backup before a reconfigure and its dumps put back; null where no backups are wired (unit tests). */
  backups: BackupForChange | null;
  /** `compose up` and wait until the containers run (or say why not). */
  up(p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void>;
}
