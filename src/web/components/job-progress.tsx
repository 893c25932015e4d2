import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { JobT } from '../../shared/api.ts';
import { getJob, request } from '../api.ts';
import { t } from '../i18n.ts';
import { ErrorMessage } from './error-message.tsx';
import './job-progress.css';

const POLL_MS = 700;
const ENDED = new Set(['succeeded', 'failed', 'interrupted']);
export const jobEnded = (j: JobT): boolean => ENDED.has(j.state);

interface JobLogT {
  lines: string[];
  next_offset: number;
  done: boolean;
}
const getJobLog = (id: string, offset: number): Promise<JobLogT> => request<JobLogT>('GET', `/api/jobs/${encodeURIComponent(id)}/log?offset=${offset}`);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Told of every job a JobProgress below it follows, once when it starts following and once when the job ended:
 * the app view reads the app's state again then, whichever of its tabs started the job. Nobody, without a provider.
 */
export const JobSeen = createContext<((job: JobT) => void) | null>(null);

/** Polls a job and its log by offset (so no line comes twice) until both are done. */
function useFollowJob(first: JobT, onEnd?: (j: JobT) => void) {
  const [job, setJob] = useState(first);
  const [lines, setLines] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(null);
  const ended = useRef(onEnd);
  ended.current = onEnd;
  const tell = useContext(JobSeen);
  const seen = useRef(tell);
  seen.current = tell;

  useEffect(() => {
    let alive = true;
    seen.current?.(first);
    const follow = async () => {
      let offset = 0;
      for (;;) {
        const [j, log] = await Promise.all([getJob(first.id), getJobLog(first.id, offset)]);
        if (!alive) return;
        offset = log.next_offset;
        setJob(j);
        if (log.lines.length > 0) setLines((prev) => [...prev, ...log.lines]);
        if (jobEnded(j) && log.done) {
          seen.current?.(j);
          return ended.current?.(j);
        }
        await sleep(POLL_MS);
      }
    };
    follow().catch((e: unknown) => alive && setError(e));
    return () => {
      alive = false;
    };
  }, [first.id]);
  return { job, lines, error };
}

function stateText(j: JobT): string {
  switch (j.state) {
    case 'queued':
      return t('jobview.queued');
    case 'running':
      return t('jobview.running');
    case 'succeeded':
      return t('jobview.succeeded');
    case 'failed':
      return t('jobview.failed', { error: j.error ?? '' });
    case 'interrupted':
      return t('jobview.interrupted');
  }
}

/** A job as it runs: a progress bar above its log, and how it ended. */
export function JobProgress({ job: first, label, onEnd }: { job: JobT; label: string; onEnd?: (j: JobT) => void }) {
  const { job, lines, error } = useFollowJob(first, onEnd);
  const pre = useRef<HTMLPreElement>(null);
  const running = !jobEnded(job);
  // Follow the newest line, like a terminal.
  useEffect(() => {
    if (pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [lines.length]);
  return (
    <div class={`job-progress job-${job.state}`}>
      <div class="job-progress-head">
        <span class="job-progress-label">{label}</span>
        <span class="job-progress-state" role="status">
          {running && <span class="spinner" aria-hidden="true" />}
          {stateText(job)}
        </span>
      </div>
      {running && job.progress === 0 ? (
        <progress aria-label={label} />
      ) : (
        <progress aria-label={label} max={1} value={job.state === 'succeeded' ? 1 : job.progress} />
      )}
      <pre class="job-log" ref={pre} role="log" aria-live="off" aria-label={t('jobview.log', { label })}>
        {lines.length > 0 ? lines.join('\n') : t('jobview.no_log')}
      </pre>
      <ErrorMessage error={error} />
    </div>
  );
}
