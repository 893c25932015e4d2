import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { JobT } from '../../shared/api.ts';
import { survivorsGone } from '../core/children.ts';
import { AppError, errorMessage, notFound } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import type { JobDetail, JobLogStore } from './job-log.ts';
import type { JobFilter, JobsRepo } from './jobs.repo.ts';

export interface JobContext {
  readonly id: string;
  /** Appends to the job log; each newline-separated part becomes one line, with masked secrets replaced. */
  log(text: string): void;
  progress(p: number): void;
  /** Values that must never appear in this job's log. */
  mask(secret: string): void;
  /**
   * Merges `detail` into what the job records about itself, durably, before the step that needs it:
   * after a crash the recovery reads it (e.g. which snapshot to roll back to).
   */
  record(detail: JobDetail): void;
}

export interface JobSpec {
  kind: string;
  stack: string | null;
  actor: Actor | null;
}

/**
 * Resolves a job a crash cut off, at the next start: undoes (or completes) its work so files and the
 * running app agree, and returns what it did: the interrupted job's closing message.
 */
export type Resolver = (job: JobT, detail: JobDetail, ctx: JobContext) => Promise<string>;

const JOB_ID = /^[0-9a-f-]{36}$/;
const INTERRUPTED = 'interrupted by a restart of Kade';

/**
 * Long operations run here: one per stack at a time (the slot), a progress value, a log persisted
 * under SVC_JOBS. A crash releases the slot and fails the job; at the next start, unfinished jobs are
 * resolved by their kind's resolver (holding the app's slot meanwhile) and end `interrupted`.
 */
export function createJobsService(deps: { repo: JobsRepo; logs: JobLogStore; events: EventBus; logger: Logger; clock: () => Date }) {
  const { repo, logs, events, logger, clock } = deps;
  const slots = new Map<string, string>();
  /** A job that works on every app at once (the path move): while it runs, no other job starts. */
  let exclusive: string | null = null;
  /** What that job does, for the refusals it causes ("moving its folders", "updating itself"). */
  let exclusiveWhat = 'moving its folders';
  // Bumped on every job start and end (see changes()).
  let changes = 0;
  const running = new Set<Promise<void>>();
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  /** Called once for every job that ends (the container model: a job's changes must show at once). */
  const endListeners = new Set<() => void>();
  const now = () => clock().toISOString();

  /** An app is taken while a job works on it, or while the job over every app runs. */
  const taken = (stack: string): boolean => slots.has(stack) || exclusive !== null;

  function busyError(stack: string): AppError {
    if (exclusive !== null) {
      return new AppError('slot_busy', `Kade is ${exclusiveWhat}; app '${stack}' can change once that is done`, { params: { stack, job: exclusive } });
    }
    return new AppError('slot_busy', `app '${stack}' is busy with another job`, { params: { stack, job: slots.get(stack) ?? '' } });
  }

  function contextOf(id: string): { ctx: JobContext; masks: string[] } {
    const masks: string[] = [];
    let detail: JobDetail | null = null;
    const ctx: JobContext = {
      id,
      log(text) {
        let t = text;
        for (const m of masks) t = t.split(m).join('***');
        const lines = t.replace(/\r/g, '').replace(/\n$/, '').split('\n');
        try {
          logs.append(id, lines);
        } catch (err) {
          // A full disk under SVC_JOBS must not turn the job's own outcome into a crash.
          logger.warn({ err, job: id }, 'job log line lost');
        }
        bus.emit(id);
      },
      progress(p) {
        repo.progress(id, Math.max(0, Math.min(1, p)));
        bus.emit(id);
      },
      mask(secret) {
        if (secret.length >= 3) masks.push(secret);
      },
      record(more) {
        detail = { ...(detail ?? logs.readDetail(id)), ...more };
        logs.writeDetail(id, detail);
      },
    };
    return { ctx, masks };
  }

  function close(id: string, spec: JobSpec, state: 'succeeded' | 'failed' | 'interrupted', error: string | null): void {
    try {
      if (state === 'succeeded') repo.progress(id, 1);
      repo.finish(id, state, now(), error);
    } catch (err) {
      logger.error({ err, job: id }, 'job end not recorded');
    }
    changes++;
    if (spec.stack !== null && slots.get(spec.stack) === id) slots.delete(spec.stack);
    if (exclusive === id) exclusive = null;
    for (const fn of endListeners) fn();
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
  }

  /** The job's stored error is shown to every viewer of the job: masked like the log. */
  const masked = (masks: string[], err: unknown) => masks.reduce((t, m) => t.split(m).join('***'), errorMessage(err));

  function launch(id: string, spec: JobSpec, ctx: JobContext, masks: string[], work: () => Promise<string | null>): void {
    const p = (async () => {
      await Promise.resolve();
      try {
        const resolved = await work();
        if (resolved === null) {
          ctx.log('done');
          close(id, spec, 'succeeded', null);
        } else {
          ctx.log(`interrupted: ${resolved}`);
          close(id, spec, 'interrupted', resolved);
        }
      } catch (err) {
        const msg = masked(masks, err);
        if (!(err instanceof AppError)) logger.error({ err, job: id }, 'job crashed');
        ctx.log(`failed: ${msg}`);
        close(id, spec, 'failed', msg);
      }
    })();
    running.add(p);
    void p.finally(() => running.delete(p));
  }

  function begin(spec: JobSpec): { id: string; ctx: JobContext; masks: string[] } {
    if (spec.stack !== null && taken(spec.stack)) throw busyError(spec.stack);
    const id = randomUUID();
    if (spec.stack !== null) slots.set(spec.stack, id);
    repo.insert({ id, kind: spec.kind, stack: spec.stack, state: 'running', startedAt: now(), user: spec.actor?.user ?? null, ip: spec.actor?.ip ?? null });
    changes++;
    return { id, ...contextOf(id) };
  }

  function start(spec: JobSpec, work: (ctx: JobContext) => Promise<void>): JobT {
    const { id, ctx, masks } = begin(spec);
    launch(id, spec, ctx, masks, async () => {
      await work(ctx);
      return null;
    });
    return repo.get(id) as JobT;
  }

  /**
   * A job over every app (spec.stack null): refused while any app's job runs; no other job starts until it ends.
   * `what` names it in those refusals.
   */
  function startExclusive(spec: JobSpec, work: (ctx: JobContext) => Promise<void>, what = 'moving its folders'): JobT {
    if (exclusive !== null) throw new AppError('slot_busy', `Kade is already ${exclusiveWhat}`, { params: { job: exclusive } });
    if (slots.size > 0) {
      const apps = [...slots.keys()].sort();
      throw new AppError('slot_busy', `apps are busy with other jobs (${apps.join(', ')}); try again when they are done`, {
        params: { stack: apps.join(', '), job: [...slots.values()].join(', ') },
      });
    }
    const job = start(spec, work);
    exclusive = job.id;
    exclusiveWhat = what;
    return job;
  }

  /** A short file-only change recorded as a job (log, slot, detail for the recovery) and run at once; its result or error is returned. */
  function runNow<T>(spec: JobSpec, work: (ctx: JobContext) => T): { job: string; result: T } {
    const { id, ctx, masks } = begin(spec);
    try {
      const result = work(ctx);
      ctx.log('done');
      close(id, spec, 'succeeded', null);
      return { job: id, result };
    } catch (err) {
      ctx.log(`failed: ${masked(masks, err)}`);
      close(id, spec, 'failed', masked(masks, err));
      throw err;
    }
  }

  /** At start: every job a crash left running is resolved by its kind's resolver (or just closed) and ends `interrupted`. */
  function recover(resolvers: Readonly<Record<string, Resolver>> = {}): JobT[] {
    const cut = repo.unfinished();
    for (const j of cut) {
      const resolve = resolvers[j.kind];
      if (!resolve || (j.stack !== null && slots.has(j.stack))) {
        logs.append(j.id, [`interrupted: Kade restarted while this job was ${j.state}`]);
        repo.finish(j.id, 'interrupted', now(), INTERRUPTED);
        changes++;
        continue;
      }
      logs.append(j.id, [`Kade restarted while this job was ${j.state}: resolving it`]);
      if (j.stack === null) exclusive = j.id;
      else slots.set(j.stack, j.id);
      const spec = { kind: j.kind, stack: j.stack, actor: null };
      const { ctx, masks } = contextOf(j.id);
      launch(j.id, spec, ctx, masks, async () => {
        // A compose run the cut-off job started may still be changing containers: the resolver's files and
        // `up` must come after it, or the app ends on the values the job says it undid (core/children.ts).
        const left = await survivorsGone();
        for (const s of left) ctx.log(`a process the cut-off job started still runs and could not be ended: pid ${s.pid}: ${s.command}`);
        const caveat =
          left.length > 0 ? `; ${left.length} process(es) of the cut-off job still run (see the log): the running app may not match the files` : '';
        try {
          return `${await resolve(j, logs.readDetail(j.id), ctx)}${caveat}`;
        } catch (err) {
          return `${INTERRUPTED}; resolving it failed: ${masked(masks, err)}${caveat}`;
        }
      });
    }
    return cut;
  }

  function get(id: string): JobT {
    const j = JOB_ID.test(id) ? repo.get(id) : null;
    if (!j) throw notFound('job', id);
    return j;
  }

  return {
    recover,
    start,
    startExclusive,
    runNow,
    get,
    list: (limit = 100) => repo.recent(limit),
    /** Past and running jobs narrowed by app, kind and state, newest first (the jobs screen). */
    find: (filter: JobFilter) => repo.find(filter),
    facets: () => repo.facets(),
    /** Counts every job started or ended: what is derived from the job list (an app's last failure) is kept while it stands still. */
    changes: () => changes,
    busy: taken,
    readLog(id: string, offset: number) {
      const job = get(id);
      const lines = logs.read(id, offset);
      const done = job.state !== 'running' && job.state !== 'queued';
      return { lines, next_offset: offset + lines.length, done };
    },
    /** Refuses with slot_busy while a job works on the app: a direct file change must not race it. */
    checkFree(stack: string): void {
      if (taken(stack)) throw busyError(stack);
    },
    /** Calls back whenever any job ends (before its waiters hear of it); returns the unsubscribe. */
    onEnd(fn: () => void): () => void {
      endListeners.add(fn);
      return () => endListeners.delete(fn);
    },
    /** Calls back whenever the job logs, progresses or ends; returns the unsubscribe. */
    watch(id: string, fn: () => void): () => void {
      bus.on(id, fn);
      return () => bus.off(id, fn);
    },
    /** Resolves with the job once it has ended. */
    wait(id: string): Promise<JobT> {
      return new Promise((resolve) => {
        const check = () => {
          const j = get(id);
          if (j.state === 'running' || j.state === 'queued') return false;
          stop();
          resolve(j);
          return true;
        };
        bus.on(id, check);
        const stop = () => bus.off(id, check);
        check();
      });
    },
    /** Waits for running jobs (tests and a clean shutdown). */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
