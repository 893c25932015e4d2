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
  /** `compose up` and wait until the containers run (or say why not). */
  up(p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void>;
}
