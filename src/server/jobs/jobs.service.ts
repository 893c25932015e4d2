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

interface JobsDeps {
  repo: JobsRepo;
  logs: JobLogStore;
  events: EventBus;
  logger: Logger;
  clock: () => Date;
}

/** The jobs' state in this process: the slots, the job over every app, the listeners. */
interface JobsState extends JobsDeps {
  slots: Map<string, string>;
  /** A job that works on every app at once (the path move): while it runs, no other job starts. */
  exclusive: string | null;
  /** What that job does, for the refusals it causes ("moving its folders", "updating itself"). */
  exclusiveWhat: string;
  // Bumped on every job start and end (see changes()).
  changes: number;
  running: Set<Promise<void>>;
  bus: EventEmitter;
  /** Called once for every job that ends (the container model: a job's changes must show at once). */
  endListeners: Set<() => void>;
}

const now = (s: JobsState) => s.clock().toISOString();

/** An app is taken while a job works on it, or while the job over every app runs. */
const taken = (s: JobsState, stack: string): boolean => s.slots.has(stack) || s.exclusive !== null;

function busyError(s: JobsState, stack: string): AppError {
  if (s.exclusive !== null) {
    return new AppError('slot_busy', `Kade is ${s.exclusiveWhat}; app '${stack}' can change once that is done`, { params: { stack, job: s.exclusive } });
  }
  return new AppError('slot_busy', `app '${stack}' is busy with another job`, { params: { stack, job: s.slots.get(stack) ?? '' } });
}

function contextOf(s: JobsState, id: string): { ctx: JobContext; masks: string[] } {
  const masks: string[] = [];
  let detail: JobDetail | null = null;
  const ctx: JobContext = {
    id,
    log(text) {
      let t = text;
      for (const m of masks) t = t.split(m).join('***');
      const lines = t.replace(/\r/g, '').replace(/\n$/, '').split('\n');
      try {
        s.logs.append(id, lines);
      } catch (err) {
        // A full disk under SVC_JOBS must not turn the job's own outcome into a crash.
        s.logger.warn({ err, job: id }, 'job log line lost');
      }
      s.bus.emit(id);
    },
    progress(p) {
      s.repo.progress(id, Math.max(0, Math.min(1, p)));
      s.bus.emit(id);
    },
    mask(secret) {
      if (secret.length >= 3) masks.push(secret);
    },
    record(more) {
      detail = { ...(detail ?? s.logs.readDetail(id)), ...more };
      s.logs.writeDetail(id, detail);
    },
  };
  return { ctx, masks };
}

function close(s: JobsState, id: string, spec: JobSpec, state: 'succeeded' | 'failed' | 'interrupted', error: string | null): void {
  try {
    if (state === 'succeeded') s.repo.progress(id, 1);
    s.repo.finish(id, state, now(s), error);
  } catch (err) {
    s.logger.error({ err, job: id }, 'job end not recorded');
  }
  s.changes++;
  if (spec.stack !== null && s.slots.get(spec.stack) === id) s.slots.delete(spec.stack);
  if (s.exclusive === id) s.exclusive = null;
  for (const fn of s.endListeners) fn();
  s.bus.emit(id);
  if (state === 'failed')
    s.events.emit({
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

function launch(s: JobsState, id: string, spec: JobSpec, ctx: JobContext, masks: string[], work: () => Promise<string | null>): void {
  const p = (async () => {
    await Promise.resolve();
    try {
      const resolved = await work();
      if (resolved === null) {
        ctx.log('done');
        close(s, id, spec, 'succeeded', null);
      } else {
        ctx.log(`interrupted: ${resolved}`);
        close(s, id, spec, 'interrupted', resolved);
      }
    } catch (err) {
      const msg = masked(masks, err);
      if (!(err instanceof AppError)) s.logger.error({ err, job: id }, 'job crashed');
      ctx.log(`failed: ${msg}`);
      close(s, id, spec, 'failed', msg);
    }
  })();
  s.running.add(p);
  void p.finally(() => s.running.delete(p));
}

function begin(s: JobsState, spec: JobSpec): { id: string; ctx: JobContext; masks: string[] } {
  if (spec.stack !== null && taken(s, spec.stack)) throw busyError(s, spec.stack);
  const id = randomUUID();
  if (spec.stack !== null) s.slots.set(spec.stack, id);
  s.repo.insert({ id, kind: spec.kind, stack: spec.stack, state: 'running', startedAt: now(s), user: spec.actor?.user ?? null, ip: spec.actor?.ip ?? null });
  s.changes++;
  return { id, ...contextOf(s, id) };
}

function start(s: JobsState, spec: JobSpec, work: (ctx: JobContext) => Promise<void>): JobT {
  const { id, ctx, masks } = begin(s, spec);
  launch(s, id, spec, ctx, masks, async () => {
    await work(ctx);
    return null;
  });
  return s.repo.get(id) as JobT;
}

/**
 * A job over every app (spec.stack null): refused while any app's job runs; no other job starts until it ends.
 * `what` names it in those refusals.
 */
function startExclusive(s: JobsState, spec: JobSpec, work: (ctx: JobContext) => Promise<void>, what = 'moving its folders'): JobT {
  if (s.exclusive !== null) throw new AppError('slot_busy', `Kade is already ${s.exclusiveWhat}`, { params: { job: s.exclusive } });
  if (s.slots.size > 0) {
    const apps = [...s.slots.keys()].sort();
    throw new AppError('slot_busy', `apps are busy with other jobs (${apps.join(', ')}); try again when they are done`, {
      params: { stack: apps.join(', '), job: [...s.slots.values()].join(', ') },
    });
  }
  const job = start(s, spec, work);
  s.exclusive = job.id;
  s.exclusiveWhat = what;
  return job;
}

/** A short file-only change recorded as a job (log, slot, detail for the recovery) and run at once; its result or error is returned. */
function runNow<T>(s: JobsState, spec: JobSpec, work: (ctx: JobContext) => T): { job: string; result: T } {
  const { id, ctx, masks } = begin(s, spec);
  try {
    const result = work(ctx);
    ctx.log('done');
    close(s, id, spec, 'succeeded', null);
    return { job: id, result };
  } catch (err) {
    ctx.log(`failed: ${masked(masks, err)}`);
    close(s, id, spec, 'failed', masked(masks, err));
    throw err;
  }
}

/** One job a crash left running, resolved by its kind's resolver while holding its app's slot (or every app's). */
function resolveCut(s: JobsState, j: JobT, resolve: Resolver): void {
  s.logs.append(j.id, [`Kade restarted while this job was ${j.state}: resolving it`]);
  if (j.stack === null) s.exclusive = j.id;
  else s.slots.set(j.stack, j.id);
  const spec = { kind: j.kind, stack: j.stack, actor: null };
  const { ctx, masks } = contextOf(s, j.id);
  launch(s, j.id, spec, ctx, masks, async () => {
    // A compose run the cut-off job started may still be changing containers: the resolver's files and
    // `up` must come after it, or the app ends on the values the job says it undid (core/children.ts).
    const left = await survivorsGone();
    for (const c of left) ctx.log(`a process the cut-off job started still runs and could not be ended: pid ${c.pid}: ${c.command}`);
    const caveat = left.length > 0 ? `; ${left.length} process(es) of the cut-off job still run (see the log): the running app may not match the files` : '';
    try {
      return `${await resolve(j, s.logs.readDetail(j.id), ctx)}${caveat}`;
    } catch (err) {
      return `${INTERRUPTED}; resolving it failed: ${masked(masks, err)}${caveat}`;
    }
  });
}

/** At start: every job a crash left running is resolved by its kind's resolver (or just closed) and ends `interrupted`. */
function recover(s: JobsState, resolvers: Readonly<Record<string, Resolver>> = {}): JobT[] {
  const cut = s.repo.unfinished();
  for (const j of cut) {
    const resolve = resolvers[j.kind];
    if (!resolve || (j.stack !== null && s.slots.has(j.stack))) {
      s.logs.append(j.id, [`interrupted: Kade restarted while this job was ${j.state}`]);
      s.repo.finish(j.id, 'interrupted', now(s), INTERRUPTED);
      s.changes++;
      continue;
    }
    resolveCut(s, j, resolve);
  }
  return cut;
}

function get(s: JobsState, id: string): JobT {
  const j = JOB_ID.test(id) ? s.repo.get(id) : null;
  if (!j) throw notFound('job', id);
  return j;
}

/** Resolves with the job once it has ended. */
function wait(s: JobsState, id: string): Promise<JobT> {
  return new Promise((resolve) => {
    const check = () => {
      const j = get(s, id);
      if (j.state === 'running' || j.state === 'queued') return false;
      stop();
      resolve(j);
      return true;
    };
    s.bus.on(id, check);
    const stop = () => s.bus.off(id, check);
    check();
  });
}

/**
 * Long operations run here: one per stack at a time (the slot), a progress value, a log persisted
 * under SVC_JOBS. A crash releases the slot and fails the job; at the next start, unfinished jobs are
 * resolved by their kind's resolver (holding the app's slot meanwhile) and end `interrupted`.
 */
export function createJobsService(deps: JobsDeps) {
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  const s: JobsState = {
    ...deps,
    slots: new Map(),
    exclusive: null,
    exclusiveWhat: 'moving its folders',
    changes: 0,
    running: new Set(),
    bus,
    endListeners: new Set(),
  };
  return {
    recover: (resolvers?: Readonly<Record<string, Resolver>>) => recover(s, resolvers),
    start: (spec: JobSpec, work: (ctx: JobContext) => Promise<void>) => start(s, spec, work),
    startExclusive: (spec: JobSpec, work: (ctx: JobContext) => Promise<void>, what?: string) => startExclusive(s, spec, work, what),
    runNow: <T>(spec: JobSpec, work: (ctx: JobContext) => T) => runNow(s, spec, work),
    get: (id: string) => get(s, id),
    list: (limit = 100) => s.repo.recent(limit),
    /** Past and running jobs narrowed by app, kind and state, newest first (the jobs screen). */
    find: (filter: JobFilter) => s.repo.find(filter),
    facets: () => s.repo.facets(),
    /** Counts every job started or ended: what is derived from the job list (an app's last failure) is kept while it stands still. */
    changes: () => s.changes,
    busy: (stack: string) => taken(s, stack),
    readLog(id: string, offset: number) {
      const job = get(s, id);
      const lines = s.logs.read(id, offset);
      const done = job.state !== 'running' && job.state !== 'queued';
      return { lines, next_offset: offset + lines.length, done };
    },
    /** Refuses with slot_busy while a job works on the app: a direct file change must not race it. */
    checkFree(stack: string): void {
      if (taken(s, stack)) throw busyError(s, stack);
    },
    /** Calls back whenever any job ends (before its waiters hear of it); returns the unsubscribe. */
    onEnd(fn: () => void): () => void {
      s.endListeners.add(fn);
      return () => s.endListeners.delete(fn);
    },
    /** Calls back whenever the job logs, progresses or ends; returns the unsubscribe. */
    watch(id: string, fn: () => void): () => void {
      s.bus.on(id, fn);
      return () => s.bus.off(id, fn);
    },
    wait: (id: string) => wait(s, id),
    /** Waits for running jobs (tests and a clean shutdown). */
    async idle(): Promise<void> {
      while (s.running.size > 0) await Promise.allSettled([...s.running]);
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
