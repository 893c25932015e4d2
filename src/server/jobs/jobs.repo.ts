import type { JobT } from '../../shared/api.ts';
import type { Db } from '../db/db.ts';

type State = JobT['state'];

interface Row {
  id: string;
  kind: string;
  stack: string | null;
  state: State;
  progress: number;
  started_at: string;
  ended_at: string | null;
  error: string | null;
  user_name: string | null;
  ip: string | null;
}

/** Who started a job and from where are part of the record; the route shows them to admins only. */
const toJob = (r: Row): JobT => ({
  id: r.id,
  kind: r.kind,
  stack: r.stack,
  state: r.state,
  progress: r.progress,
  started_at: r.started_at,
  ended_at: r.ended_at,
  error: r.error,
  user: r.user_name,
  ip: r.ip,
});

/** What the jobs screen narrows the list by; `before` pages back by start time. */
export interface JobFilter {
  stack?: string | undefined;
  kind?: string | undefined;
  state?: State | undefined;
  before?: string | undefined;
  limit: number;
}

export function createJobsRepo(db: Db) {
  const insert = db.prepare('INSERT INTO jobs (id, kind, stack, state, progress, started_at, user_name, ip) VALUES (?, ?, ?, ?, 0, ?, ?, ?)');
  const setState = db.prepare('UPDATE jobs SET state = ?, ended_at = ?, error = ? WHERE id = ?');
  const setProgress = db.prepare('UPDATE jobs SET progress = ? WHERE id = ?');
  const get = db.prepare<[string], Row>('SELECT * FROM jobs WHERE id = ?');
  const recent = db.prepare<[number], Row>('SELECT * FROM jobs ORDER BY started_at DESC, rowid DESC LIMIT ?');
  const unfinished = db.prepare<[], Row>("SELECT * FROM jobs WHERE state IN ('queued','running')");
  // A filter left out matches everything: `? IS NULL OR column = ?`, one statement for every combination.
  const filtered = db.prepare<
    [string | null, string | null, string | null, string | null, string | null, string | null, string | null, string | null, number],
    Row
  >(
    `SELECT * FROM jobs WHERE (? IS NULL OR stack = ?) AND (? IS NULL OR kind = ?) AND (? IS NULL OR state = ?) AND (? IS NULL OR started_at < ?)
     ORDER BY started_at DESC, rowid DESC LIMIT ?`,
  );
  const stacks = db.prepare<[], { stack: string }>('SELECT DISTINCT stack FROM jobs WHERE stack IS NOT NULL ORDER BY stack');
  const kinds = db.prepare<[], { kind: string }>('SELECT DISTINCT kind FROM jobs ORDER BY kind');
  return {
    insert(j: { id: string; kind: string; stack: string | null; state: State; startedAt: string; user: string | null; ip: string | null }) {
      insert.run(j.id, j.kind, j.stack, j.state, j.startedAt, j.user, j.ip);
    },
    finish(id: string, state: State, endedAt: string, error: string | null) {
      setState.run(state, endedAt, error, id);
    },
    start(id: string) {
      setState.run('running', null, null, id);
    },
    progress(id: string, p: number) {
      setProgress.run(p, id);
    },
    get: (id: string): JobT | null => {
      const r = get.get(id);
      return r ? toJob(r) : null;
    },
    recent: (limit: number): JobT[] => recent.all(limit).map(toJob),
    unfinished: (): JobT[] => unfinished.all().map(toJob),
    find(f: JobFilter): JobT[] {
      const pair = (v: string | undefined) => [v ?? null, v ?? null] as const;
      return filtered.all(...pair(f.stack), ...pair(f.kind), ...pair(f.state), ...pair(f.before), f.limit).map(toJob);
    },
    /** The apps and kinds that have jobs: the jobs screen's filter choices. */
    facets: () => ({ stacks: stacks.all().map((r) => r.stack), kinds: kinds.all().map((r) => r.kind) }),
  };
}

export type JobsRepo = ReturnType<typeof createJobsRepo>;
