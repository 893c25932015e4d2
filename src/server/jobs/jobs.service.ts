import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { JobT } from '../../shared/api.ts';
import { AppError, errorMessage, notFound } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import type { JobLogStore } from './job-log.ts';
import type { JobsRepo } from './jobs.repo.ts';

export interface JobContext {
  readonly id: string;
  /** Appends to the job log; each newline-separated part becomes one line, with masked secrets replaced. */
  log(text: string): void;
  progress(p: number): void;
  /** Values that must never appear in this job's log. */
  mask(secret: string): void;
}

export interface JobSpec {
  kind: string;
  stack: string | null;
  actor: Actor | null;
}

const JOB_ID = /^[0-9a-f-]{36}$/;

/**
 * Long operations run here: one per stack at a time (the slot), a progress value, a log persisted
 * under SVC_JOBS. A crash releases the slot and fails the job; a restart marks unfinished jobs interrupted.
 */
export function createJobsService(deps: { repo: JobsRepo; logs: JobLogStore; events: EventBus; logger: Logger; clock: () => Date }) {
  const { repo, logs, events, logger, clock } = deps;
  const slots = new Map<string, string>();
  const running = new Set<Promise<void>>();
  const bus = new EventEmitter();
  bus.setMaxListeners(0);

  const now = () => clock().toISOString();

  function recover(): number {
    const cut = repo.unfinished();
    for (const j of cut) {
      logs.append(j.id, [`interrupted: Kade restarted while this job was ${j.state}`]);
      repo.finish(j.id, 'interrupted', now(), 'interrupted by a restart of Kade');
    }
    return cut.length;
  }

  function start(spec: JobSpec, work: (ctx: JobContext) => Promise<void>): JobT {
    if (spec.stack !== null && slots.has(spec.stack)) {
      throw new AppError('slot_busy', `app '${spec.stack}' is busy with another job`, { params: { stack: spec.stack, job: slots.get(spec.stack) ?? '' } });
    }
    const id = randomUUID();
    if (spec.stack !== null) slots.set(spec.stack, id);
    repo.insert({ id, kind: spec.kind, stack: spec.stack, state: 'running', startedAt: now(), user: spec.actor?.user ?? null, ip: spec.actor?.ip ?? null });
    const masks: string[] = [];
    const ctx: JobContext = {
      id,
      log(text) {
        let t = text;
        for (const m of masks) t = t.split(m).join('***');
        const lines = t.replace(/\r/g, '').replace(/\n$/, '').split('\n');
        logs.append(id, lines);
        bus.emit(id);
      },
      progress(p) {
        repo.progress(id, Math.max(0, Math.min(1, p)));
        bus.emit(id);
      },
      mask(secret) {
        if (secret.length >= 3) masks.push(secret);
      },
    };
    const finish = (state: 'succeeded' | 'failed', error: string | null) => {
      if (state === 'succeeded') repo.progress(id, 1);
      repo.finish(id, state, now(), error);
      if (spec.stack !== null && slots.get(spec.stack) === id) slots.delete(spec.stack);
      bus.emit(id);
      if (state === 'failed')
        events.emit({
          type: 'job.failed',
          actor: spec.actor,
          source: 'jobs',
          target: spec.stack ?? spec.kind,
          status: 'failed',
          detail: { kind: spec.kind, job: id },
        });
    };
    const p = (async () => {
      await Promise.resolve();
      try {
        await work(ctx);
        ctx.log('done');
        finish('succeeded', null);
      } catch (err) {
        // The stored error is shown to every viewer of the job: masked like the log.
        const msg = masks.reduce((t, m) => t.split(m).join('***'), errorMessage(err));
        if (!(err instanceof AppError)) logger.error({ err, job: id }, 'job crashed');
        try {
          ctx.log(`failed: ${msg}`);
        } finally {
          finish('failed', msg);
        }
      }
    })();
    running.add(p);
    void p.finally(() => running.delete(p));
    return repo.get(id) as JobT;
  }

  function get(id: string): JobT {
    const j = JOB_ID.test(id) ? repo.get(id) : null;
    if (!j) throw notFound('job', id);
    return j;
  }

  return {
    recover,
    start,
    get,
    list: (limit = 100) => repo.recent(limit),
    busy: (stack: string) => slots.has(stack),
    readLog(id: string, offset: number) {
      const job = get(id);
      const lines = logs.read(id, offset);
      const done = job.state !== 'running' && job.state !== 'queued';
      return { lines, next_offset: offset + lines.length, done };
    },
    /** Refuses with slot_busy while a job works on the app: a direct file change must not race it. */
    checkFree(stack: string): void {
      const job = slots.get(stack);
      if (job) throw new AppError('slot_busy', `app '${stack}' is busy with another job`, { params: { stack, job } });
    },
    /** Calls back whenever the job logs, progresses or ends; returns the unsubscribe. */
    watch(id: string, fn: () => void): () => void {
      bus.on(id, fn);
      return () => bus.off(id, fn);
    },
    /** Waits for running jobs (tests and a clean shutdown). */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
