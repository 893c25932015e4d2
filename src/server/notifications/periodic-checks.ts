/**
 * The checks the notifier runs on a timer: low disk space on the backup disk (DISK_MIN_FREE_GB, DISK_WARN_PCT; every
 * few minutes and after each backup) and stuck jobs (running longer than `stuckAfterMinutes`; reported once per job).
 */
import type { JobT } from '../../shared/api.ts';
import type { DiskStateT } from '../../shared/backups.ts';
import type { NotifyRequest } from './notifier.ts';

/** The default threshold: a job running longer than this counts as stuck (an install or a large backup takes minutes). */
export const STUCK_AFTER_MINUTES = 30;
const GB = 1024 ** 3;

/** Low: less than DISK_MIN_FREE_GB free, or DISK_WARN_PCT or more used. */
export function diskRequest(s: DiskStateT): NotifyRequest {
  const freeGb = s.free / GB;
  const low = freeGb < s.min_free_gb || s.used_pct >= s.warn_pct;
  const message = low
    ? `${freeGb.toFixed(1)} GB free on ${s.path} (${s.used_pct}% used); Kade keeps ${s.min_free_gb} GB free and warns from ${s.warn_pct}% (DISK_MIN_FREE_GB, DISK_WARN_PCT).`
    : `${freeGb.toFixed(1)} GB free on ${s.path} again.`;
  return { kind: 'disk_low', subject: s.path, message, state: low ? 'on' : 'off' };
}

/** Jobs running longer than the threshold; each one's round is its id, so it is reported once. */
export function stuckRequests(jobs: readonly JobT[], now: Date, stuckAfterMinutes: number): NotifyRequest[] {
  const limit = now.getTime() - stuckAfterMinutes * 60_000;
  return jobs
    .filter((j) => j.state === 'running' && Date.parse(j.started_at) < limit)
    .map((j) => {
      const minutes = Math.floor((now.getTime() - Date.parse(j.started_at)) / 60_000);
      const what = j.stack ? `${j.kind} of ${j.stack}` : j.kind;
      return {
        kind: 'job_stuck',
        subject: what,
        round: j.id,
        message: `The job ${what} (${j.id}) has been running for ${minutes} minutes, since ${j.started_at}; Kade reports a job after ${stuckAfterMinutes} minutes.`,
      };
    });
}
