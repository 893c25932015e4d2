import type { JobT } from '../../shared/api.ts';
import { requireRole } from '../core/authorize.ts';
import { errorMessage } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { ComposeProject } from '../engine/compose.ts';
import type { Engine } from '../engine/engine.ts';
import type { JobContext, JobsService } from '../jobs/jobs.service.ts';
import type { GatedCompose } from '../stacks/gate/compose-gate.ts';
import { waitUntilUp } from '../stacks/use-cases/wait.ts';
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
  let allJob: string | null = null;

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

    /**
     * `POST /api/stacks/update-check`: every app asked now, as one job whose log names each app's outcome.
     * While one runs, asking again answers that job.
     */
    checkAll(actor: Actor): JobT {
      requireRole(actor, 'operator', 'updating apps');
      const running = allJob ? d.jobs.get(allJob) : null;
      if (running && (running.state === 'running' || running.state === 'queued')) return running;
      const job = d.jobs.start({ kind: 'updates.check', stack: null, actor }, async (ctx) => {
        ctx.log('asking the registries about the images of every app');
        const checks = await d.stackUpdates.checkAll({
          force: true,
          onChecked(c, done, of) {
            if (c) ctx.log(`${c.name}: ${describeCheck(c)}`);
            ctx.progress(done / Math.max(1, of));
          },
        });
        const updates = checks.filter((c) => c.update === 'update').length;
        ctx.log(`${checks.length} app(s) checked, ${updates} with an update`);
      });
      allJob = job.id;
      return job;
    },

    /** `POST /api/stacks/{name}/update`: a job that backs up, pulls and recreates, then asks the registry again. */
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
        // The images were just pulled from the registry: one more question says whether the app is current now.
        try {
          ctx.log(`checked again: ${describeCheck(await d.stackUpdates.check(name))}`);
        } catch (err) {
          ctx.log(`the check after the update failed: ${errorMessage(err)}`);
        }
      });
    },

    known: (name: string) => d.stackUpdates.known(name),
  };
}

/** One line of a check's outcome for a job log. */
function describeCheck(c: StackCheck): string {
  const failed = c.images.filter((i) => i.reason === 'registry');
  if (c.update === 'update')
    return `update available (${c.images
      .filter((i) => i.state === 'update')
      .map((i) => i.image)
      .join(', ')})`;
  if (c.update === 'current') return 'up to date';
  if (failed.length > 0) return `the registry could not be asked (${failed.map((i) => `${i.image}: ${i.detail ?? 'no answer'}`).join('; ')})`;
  return `nothing to compare (${c.images.map((i) => `${i.image}: ${i.reason}`).join(', ') || 'no containers'})`;
}

export type UpdatesService = ReturnType<typeof createUpdatesService>;
