/**
 * Restarting the container engine from Kade (issue #16 item 5). Kade runs in a container, so it cannot reach the
 * host's service manager itself: a short-lived helper container in the host's PID namespace reads what PID 1 is
 * (`/proc/1/comm`, unprivileged), and only when that is systemd and it has a docker.service unit does a privileged
 * helper ask systemd for the restart (`nsenter` into PID 1's namespaces, `systemctl --no-block restart`: the helper
 * itself is stopped with the engine, systemd carries on). Any other host gets a refusal that says why and what to
 * do instead. The job then waits until the engine went away and answers again.
 */
import type { JobT } from '../../shared/api.ts';
import { requireRole } from '../core/authorize.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { Engine } from '../engine/engine.ts';
import type { HostHelper } from '../engine/host-helper.ts';
import type { JobContext, JobsService, Resolver } from '../jobs/jobs.service.ts';

export const ENGINE_UNIT = 'docker.service';
export const JOB_KIND = 'engine.restart';
/** Audited when asked for: the job started (ok), or the refusal and its reason (failed). */
export const EVENT = 'engine.restart';
const NSENTER = ['nsenter', '-t', '1', '-m', '-u', '-i', '-n', '-p', '--'];

export interface EngineRestartDeps {
  helper: HostHelper;
  engine: Pick<Engine, 'ping'>;
  jobs: Pick<JobsService, 'startExclusive'>;
  events: EventBus;
  /** Kade's own container: it stops with the engine, and the job ends at Kade's next start. */
  ownContainerId: string | null;
  pollMs?: number;
  /** How long the engine may keep answering after the restart was asked for. */
  goneWithinMs?: number;
  /** How long it may take to answer again. */
  backWithinMs?: number;
}

/** Why the engine cannot be restarted from here; the interface words each `reason`. */
export function refusal(reason: 'not_systemd' | 'no_unit', detail: string): AppError {
  const message =
    reason === 'not_systemd'
      ? `the engine is not run by systemd on this host (PID 1 is '${detail}'); restart it with the command your system uses`
      : `systemd on this host has no ${ENGINE_UNIT} unit (${detail}), so the engine runs some other way; restart it with the command your system uses`;
  return new AppError('conflict', message, { params: reason === 'not_systemd' ? { reason, pid1: detail } : { reason, unit: ENGINE_UNIT, state: detail } });
}

/** `systemctl show -p LoadState,ActiveState` output as a record. */
export function parseShow(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

/** The deps with the waits filled in. */
interface Restart extends EngineRestartDeps {
  pollMs: number;
  goneWithinMs: number;
  backWithinMs: number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the host runs as PID 1, and the engine unit's state when that is systemd; refuses otherwise. */
async function check(d: Restart): Promise<{ active: string }> {
  const comm = await d.helper({ cmd: ['cat', '/proc/1/comm'], privileged: false });
  const pid1 = comm.stdout.trim();
  if (comm.exitCode !== 0 || pid1 === '')
    throw new AppError('engine_unreachable', `reading the host's PID 1 failed: ${comm.stderr.trim() || `exit code ${comm.exitCode}`}`);
  if (pid1 !== 'systemd') throw refusal('not_systemd', pid1);
  const show = await d.helper({ cmd: [...NSENTER, 'systemctl', 'show', '--property=LoadState,ActiveState', ENGINE_UNIT], privileged: true });
  const props = parseShow(show.stdout);
  if (show.exitCode !== 0 || props.LoadState !== 'loaded') throw refusal('no_unit', props.LoadState ?? (show.stderr.trim() || `exit code ${show.exitCode}`));
  return { active: props.ActiveState ?? 'unknown' };
}

/** Polls the engine until `answers` is what it does, or the time is up. */
async function until(d: Restart, answers: boolean, withinMs: number): Promise<string | null> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const version = await d.engine.ping().then(
      (v) => v.version,
      () => null,
    );
    if ((version !== null) === answers) return version ?? '';
    if (Date.now() > deadline) return null;
    await pause(d.pollMs);
  }
}

/** The engine gone, then back: what it says once it answers again, or why the job fails. */
async function waitGoneAndBack(d: Restart, ctx: JobContext): Promise<string> {
  if ((await until(d, false, d.goneWithinMs)) === null) {
    throw new AppError(
      'conflict',
      `the engine kept answering for ${d.goneWithinMs / 1000} s after the restart was asked for: see \`systemctl status ${ENGINE_UNIT}\` on the host`,
    );
  }
  ctx.log('the engine stopped; waiting for it to answer again');
  ctx.progress(0.5);
  const version = await until(d, true, d.backWithinMs);
  if (version === null) {
    throw new AppError(
      'engine_unreachable',
      `the engine did not answer within ${d.backWithinMs / 1000} s of stopping: see \`systemctl status ${ENGINE_UNIT}\` and \`journalctl -u ${ENGINE_UNIT}\` on the host`,
    );
  }
  return version;
}

async function work(d: Restart, ctx: JobContext, active: string): Promise<void> {
  ctx.log(`PID 1 of the engine's host is systemd and ${ENGINE_UNIT} is loaded (${active})`);
  if (d.ownContainerId !== null) {
    ctx.log(
      "Kade runs in a container of this engine: it stops with the engine and its restart policy starts it again; this job then ends with the engine's answer",
    );
  }
  ctx.record({ asked: new Date().toISOString() });
  const asked = await d.helper({ cmd: [...NSENTER, 'systemctl', '--no-block', 'restart', ENGINE_UNIT], privileged: true });
  if (asked.exitCode !== 0) throw new AppError('conflict', `systemctl restart ${ENGINE_UNIT} failed: ${asked.stderr.trim() || `exit code ${asked.exitCode}`}`);
  ctx.log(`systemd restarts ${ENGINE_UNIT}; waiting for the engine to go away`);
  ctx.progress(0.2);
  const version = await waitGoneAndBack(d, ctx);
  ctx.log(`the engine answers again (Docker ${version})`);
}

/** Checks what the host can do, then restarts the engine as a job; a host where Kade cannot is a `conflict` saying why. */
async function restart(d: Restart, actor: Actor): Promise<JobT> {
  requireRole(actor, 'admin', 'restarting the container engine');
  let active: string;
  try {
    ({ active } = await check(d));
  } catch (err) {
    const reason = err instanceof AppError ? String(err.params.reason ?? err.code) : 'internal';
    d.events.emit({ type: EVENT, actor, source: 'engine', target: ENGINE_UNIT, status: 'failed', detail: { reason, message: errorMessage(err) } });
    throw err;
  }
  const job = d.jobs.startExclusive({ kind: JOB_KIND, stack: null, actor }, (ctx) => work(d, ctx, active), 'restarting the container engine');
  d.events.emit({ type: EVENT, actor, source: 'engine', target: ENGINE_UNIT, status: 'ok', detail: { job: job.id } });
  return job;
}

export function createEngineRestart(deps: EngineRestartDeps) {
  const d: Restart = { ...deps, pollMs: deps.pollMs ?? 250, goneWithinMs: deps.goneWithinMs ?? 60_000, backWithinMs: deps.backWithinMs ?? 180_000 };
  /** A Kade in a container of the engine stopped with it: at its next start the job ends with what the engine says now. */
  const resolve: Resolver = async () => {
    const v = await d.engine.ping();
    return `Kade stopped with the engine and started again; the engine answers (Docker ${v.version})`;
  };
  return {
    /** Checks what the host can do, then restarts the engine as a job; a host where Kade cannot is a `conflict` saying why. */
    restart: (actor: Actor): Promise<JobT> => restart(d, actor),
    resolvers: { [JOB_KIND]: resolve } as Record<string, Resolver>,
  };
}

export type EngineRestartService = ReturnType<typeof createEngineRestart>;
