import type { JobT } from '../../../shared/api.ts';
import type { Actor } from '../../core/events.ts';
import { stopEvenIfRefused, type UpWait } from './project-runs.ts';
import type { StackContext } from './stack-context.ts';
import { waitUntilUp } from './wait.ts';

export type StackOp = 'start' | 'stop' | 'restart';

/** Start, stop or restart an installed app, as a job of the app. */
export function createOperate(c: StackContext, o: { wait: UpWait }) {
  return function operate(actor: Actor, name: string, op: StackOp): JobT {
    const p = c.store.project(c.store.locate(name));
    return c.jobs.start({ kind: `stack.${op}`, stack: name, actor }, async (ctx) => {
      if (op === 'start') await c.up(p, ctx, actor);
      else if (op === 'stop') await stopEvenIfRefused(c.engine, c.gate, p, ctx, actor);
      else if ((await c.engine.listContainers({ project: p.name })).length === 0) {
        // `compose restart` refuses an app whose containers do not exist (an install cut off before `up`): create them.
        ctx.log('the app has no containers yet: creating them');
        await c.up(p, ctx, actor);
      } else {
        await c.compose.restart(p, { onOutput: (t: string) => ctx.log(t), actor });
        await waitUntilUp(c.engine, p.name, ctx, o.wait);
      }
      c.events.emit({ type: `stack.${op}`, actor, source: 'stacks', target: name, status: 'ok' });
    });
  };
}
