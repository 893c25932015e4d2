import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { JobT } from '../../shared/api.ts';
import { type DeleteOptions, getJob, type StackAction, stackAction } from '../api.ts';

export interface TrackedJob {
  action: StackAction;
  /** Null until the server accepted the action. */
  job: JobT | null;
  /** A refusal of the action or a failure while following the job. */
  error: unknown;
}

const POLL_MS = 1000;
const KEEP_SUCCESS_MS = 5000;
const FINISHED = new Set(['succeeded', 'failed', 'interrupted']);

export const isFinished = (j: JobT | null): boolean => j !== null && FINISHED.has(j.state);
export const isBusy = (t: TrackedJob | undefined): boolean => t !== undefined && t.error === null && !isFinished(t.job);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Start/stop/restart per app: sends the action, follows the job until it ends,
 * then asks for a fresh list. A success message fades; failures stay until dismissed.
 */
export function useStackJobs(onFinished: () => void) {
  const [byStack, setByStack] = useState<Record<string, TrackedJob>>({});
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const put = useCallback((name: string, tracked: TrackedJob | null) => {
    if (!alive.current) return;
    setByStack((prev) => {
      const next = { ...prev };
      if (tracked) next[name] = tracked;
      else delete next[name];
      return next;
    });
  }, []);

  const follow = useCallback(
    async (name: string, action: StackAction, first: JobT) => {
      let job = first;
      while (!isFinished(job) && alive.current) {
        await sleep(POLL_MS);
        job = await getJob(job.id);
        put(name, { action, job, error: null });
      }
      return job;
    },
    [put],
  );

  const run = useCallback(
    async (name: string, action: StackAction, opts: DeleteOptions = {}) => {
      put(name, { action, job: null, error: null });
      try {
        const accepted = await stackAction(name, action, opts);
        put(name, { action, job: accepted, error: null });
        const job = await follow(name, action, accepted);
        if (job.state === 'succeeded') {
          setTimeout(() => {
            // Only clear the message of this job: a newer action on the same app keeps its own.
            if (alive.current) setByStack((prev) => (prev[name]?.job?.id === job.id ? dropKey(prev, name) : prev));
          }, KEEP_SUCCESS_MS);
        }
      } catch (error) {
        put(name, { action, job: null, error });
      } finally {
        if (alive.current) onFinished();
      }
    },
    [put, follow, onFinished],
  );

  const dismiss = useCallback((name: string) => put(name, null), [put]);
  return { byStack, run, dismiss };
}

function dropKey<T>(rec: Record<string, T>, key: string): Record<string, T> {
  const next = { ...rec };
  delete next[key];
  return next;
}
