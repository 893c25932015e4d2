import type { JobT } from '../../shared/api.ts';
import { requireRole } from '../core/authorize.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { ComposeProject } from '../engine/compose.ts';
import type { Engine } from '../engine/engine.ts';
import type { JobContext, JobsService } from '../jobs/jobs.service.ts';
import type { GatedCompose } from '../stacks/compose-gate.ts';
import { waitUntilUp } from '../stacks/wait.ts';
import { withRegistryAuth } from './docker-config.ts';
import type { RegistryCredentials } from './registry-client.ts';
import type { StackCheck, StackUpdates } from './stack-updates.ts';

/**
 * Runs before the pull of an update. SPEC: "backup before update … backup fails → the action goes on".
 * Backups do not exist yet: until they do, nothing runs here and the job says nothing about one.
 */
export type BeforeUpdate = (p: ComposeProject, ctx: JobContext) => Promise<void>;

export interface UpdatesDeps {
  stackUpdates: StackUpdates;
  /** The compose project of an installed stack; throws not_found / invalid_name like the stacks service. */
  project: (name: string) => ComposeProject;
  jobs: JobsService;
  /** Compose behind the stacks' gate (compose-gate.ts). */
  compose: GatedCompose;
  engine: Engine;
  events: EventBus;
  credentials: () => RegistryCredentials | null;
  beforeUpdate?: BeforeUpdate;
}

/** Update checks of installed apps and the update itself: backup hook, pull, recreate. */
export function createUpdatesService(d: UpdatesDeps) {
  const beforeUpdate = d.beforeUpdate ?? (async () => undefined);

  async function pullAndRecreate(p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void> {
    await beforeUpdate(p, ctx);
    ctx.progress(0.2);
    const creds = d.credentials();
    ctx.log(creds ? `pulling images (with the account for ${creds.host})` : 'pulling images');
    if (creds) ctx.mask(creds.token);
    await withRegistryAuth(creds, (env) => d.compose.pull(p, { onOutput: (t) => ctx.log(t), env, actor }));
    ctx.progress(0.6);
    ctx.log('recreating containers whose image changed');
    await d.compose.up(p, { onOutput: (t) => ctx.log(t), actor });
    ctx.progress(0.8);
    await waitUntilUp(d.engine, p.name, ctx, { timeoutMs: 60_000 });
  }

  return {
    /** Asks the registries now (skipping the week cache) and stores the stack's result for the list. */
    async check(actor: Actor, name: string): Promise<StackCheck> {
      requireRole(actor, 'operator', 'updating apps');
      d.project(name);
      return d.stackUpdates.check(name, { force: true });
    },

    /** `POST /api/stacks/{name}/update`: a job that backs up, pulls and recreates, then forgets the old result. */
    update(actor: Actor, name: string): JobT {
      requireRole(actor, 'operator', 'updating apps');
      const p = d.project(name);
      return d.jobs.start({ kind: 'stack.update', stack: name, actor }, async (ctx) => {
        try {
          await pullAndRecreate(p, ctx, actor);
        } catch (err) {
          d.events.emit({ type: 'stack.updated', actor, source: 'stacks', target: name, status: 'failed' });
          throw err;
        } finally {
          d.stackUpdates.forget(name);
        }
        d.events.emit({ type: 'stack.updated', actor, source: 'stacks', target: name, status: 'ok' });
      });
    },

    state: (name: string) => d.stackUpdates.state(name),
  };
}

export type UpdatesService = ReturnType<typeof createUpdatesService>;
