import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../core/errors.ts';
import type { ContainerSummary, Engine } from '../../engine/engine.ts';
import type { JobContext } from '../../jobs/jobs.service.ts';

const settled = (c: ContainerSummary) => c.state === 'running' && c.health !== 'starting';
const failedUp = (c: ContainerSummary) => c.state === 'exited' || c.state === 'dead' || c.health === 'unhealthy';

async function collect(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

/** Writes the log tail and health-check output of containers that did not come up into the job log. */
async function reportFailures(engine: Engine, bad: ContainerSummary[], ctx: JobContext): Promise<void> {
  for (const c of bad) {
    ctx.log(`container ${c.name} is ${c.state}${c.health ? ` (${c.health})` : ''}: ${c.status}`);
    try {
      const logs = await collect(await engine.containerLogs(c.id, { tail: 50 }));
      if (logs.trim()) ctx.log(logs.trimEnd().replace(/^/gm, `  ${c.name} | `));
      const info = (await engine.inspectContainer(c.id)) as { State?: { Health?: { Log?: { Output?: string; ExitCode?: number }[] } } };
      for (const h of info.State?.Health?.Log?.slice(-3) ?? []) ctx.log(`  health check (exit ${h.ExitCode ?? '?'}): ${(h.Output ?? '').trim()}`);
    } catch (err) {
      ctx.log(`  (could not read its logs: ${(err as Error).message})`);
    }
  }
}

/** Waits until every container of the project runs (and is healthy where it has a check) on two polls in a row. */
export async function waitUntilUp(engine: Engine, project: string, ctx: JobContext, opts: { timeoutMs: number; intervalMs?: number }): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let list: ContainerSummary[] = [];
  // Running twice in a row, one interval apart: a container that exits right after its start is not "up".
  let settledPolls = 0;
  while (Date.now() < deadline) {
    list = await engine.listContainers({ project });
    const bad = list.filter(failedUp);
    if (bad.length > 0) {
      await reportFailures(engine, bad, ctx);
      throw new AppError('conflict', `${bad.length} container(s) of '${project}' failed to come up`, { params: { stack: project } });
    }
    settledPolls = list.length > 0 && list.every(settled) ? settledPolls + 1 : 0;
    if (settledPolls >= 2) {
      ctx.log(`${list.length} container(s) running`);
      return;
    }
    await sleep(opts.intervalMs ?? 500);
  }
  const waiting = list.filter((c) => !settled(c));
  await reportFailures(engine, waiting, ctx);
  throw new AppError('conflict', `containers of '${project}' did not come up within ${Math.round(opts.timeoutMs / 1000)} s`, { params: { stack: project } });
}
