import { AppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import type { ComposeProject } from '../../engine/compose.ts';
import type { Engine } from '../../engine/engine.ts';
import type { JobContext } from '../../jobs/jobs.service.ts';
import type { ComposeGate } from '../gate/compose-gate.ts';
import { waitUntilUp } from './wait.ts';

/** The gate's refusals: the files changed, or what they ask for is refused as the acting user. */
const REFUSALS = new Set(['stack_files_refused', 'compose_refused', 'app_powers_refused', 'forbidden_path', 'compose_invalid']);

/** How long an `up` waits for the containers to run, and how often it asks the engine. */
export interface UpWait {
  timeoutMs: number;
  intervalMs?: number;
}

/** `compose up` through `via` and wait until the containers run (or say why not). */
export async function upProject(engine: Engine, via: ComposeGate, wait: UpWait, p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void> {
  ctx.log('starting containers');
  await via.compose.up(p, { onOutput: (t) => ctx.log(t), actor });
  ctx.progress(0.7);
  await waitUntilUp(engine, p.name, ctx, wait);
}

const refused = (err: unknown): err is AppError => err instanceof AppError && REFUSALS.has(err.code);

/**
 * Stopping never depends on the files: when the gate refuses them (changed outside Kade), the app's containers are
 * stopped through the engine by their project label, which reads no file.
 */
export async function stopEvenIfRefused(engine: Engine, via: ComposeGate, p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void> {
  try {
    await via.compose.stop(p, { onOutput: (t) => ctx.log(t), actor });
  } catch (err) {
    if (!refused(err)) throw err;
    ctx.log(`compose refused: ${err.message}`);
    ctx.log("stopping the app's containers through the engine instead");
    for (const c of await engine.listContainers({ project: p.name })) if (c.state === 'running') await engine.stopContainer(c.id);
  }
}

/** Removing an app never depends on its files either: its containers go through the engine when the gate refuses. */
export async function downEvenIfRefused(engine: Engine, via: ComposeGate, p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void> {
  try {
    await via.compose.down(p, { onOutput: (t) => ctx.log(t), actor });
  } catch (err) {
    if (!refused(err)) throw err;
    ctx.log(`compose refused: ${err.message}`);
    ctx.log("removing the app's containers through the engine instead");
    for (const c of await engine.listContainers({ project: p.name })) {
      if (c.state === 'running') await engine.stopContainer(c.id);
      await engine.removeContainer(c.id);
    }
  }
}
