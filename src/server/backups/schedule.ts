/**
 * Scheduled backups (SPEC Settings: BACKUP_SCHEDULE_*): daily, or weekly on BACKUP_SCHEDULE_DAY, at an hour on
 * the clock of TIMEZONE (not the process's zone), across a daylight-saving change too. A round backs up every app
 * in turn; an app whose slot is busy is skipped and said. The time of the last round is kept in SVC_DATA, so a restart neither repeats nor forgets a round.
 */
import { readFileSync } from 'node:fs';
import { errorMessage } from '../core/errors.ts';
import { writeFileAtomic } from '../core/fs-atomic.ts';
import type { Logger } from '../core/logger.ts';
import { addDays, atHour, dayIn, weekdayOf, type Zone } from '../core/zoned-time.ts';

export interface ScheduleSettings {
  mode: 'off' | 'daily' | 'weekly';
  day: number;
  hour: number;
  /** TIMEZONE: the zone whose clock `hour` and `day` are read on; null when that is the process's own clock. */
  zone: Zone;
}

/** The last moment at or before `now` when a round was due; null when the schedule is off. */
export function lastDue(s: ScheduleSettings, now: Date): Date | null {
  if (s.mode === 'off') return null;
  let day = dayIn(now, s.zone);
  for (let i = 0; i < 9; i++, day = addDays(day, -1)) {
    if (s.mode === 'weekly' && weekdayOf(day) !== s.day) continue;
    const due = atHour(day, s.hour, s.zone);
    if (due <= now) return due;
  }
  return null;
}

/** The next round after `now`; null when off. */
export function nextRun(s: ScheduleSettings, now: Date): Date | null {
  if (s.mode === 'off') return null;
  let day = dayIn(now, s.zone);
  for (let i = 0; i < 9; i++, day = addDays(day, 1)) {
    if (s.mode === 'weekly' && weekdayOf(day) !== s.day) continue;
    const next = atHour(day, s.hour, s.zone);
    if (next > now) return next;
  }
  return null;
}

/** What became of one app's backup in a round. */
export interface AppOutcome {
  state: 'ok' | 'busy' | 'failed';
  /** Why it failed. */
  error?: string;
  /** The backup made, when its archive did not read back as written. */
  unreadable?: string;
}

/** One round's failures, for one message each (SPEC Events: failed backup and unreadable archive, one per round). */
export interface RoundReport {
  /** The due moment the round ran for (ISO): names the round. */
  round: string;
  apps: number;
  failed: { app: string; error: string }[];
  unreadable: { app: string; id: string }[];
}

export interface ScheduleDeps {
  settings: () => ScheduleSettings;
  apps: () => string[];
  /** Backs up one app and waits for it: `busy` when the app's slot is taken. */
  backup: (stack: string) => Promise<AppOutcome>;
  /** Called once after each round that ran. */
  report?: (r: RoundReport) => void;
  stateFile: string;
  logger: Logger;
  clock: () => Date;
}

export function createBackupSchedule(d: ScheduleDeps) {
  let running = false;
  let timer: NodeJS.Timeout | undefined;

  const lastRound = (): number => {
    try {
      return Date.parse((JSON.parse(readFileSync(d.stateFile, 'utf8')) as { last_round: string }).last_round) || 0;
    } catch {
      return 0;
    }
  };

  /** One round now: every app in turn. Returns what happened per app. */
  async function round(): Promise<Record<string, AppOutcome>> {
    const out: Record<string, AppOutcome> = {};
    for (const app of d.apps()) {
      try {
        out[app] = await d.backup(app);
      } catch (err) {
        out[app] = { state: 'failed', error: errorMessage(err) };
      }
      if (out[app].state === 'failed') d.logger.warn({ app, err: out[app].error }, 'scheduled backup failed');
      if (out[app].state === 'busy') d.logger.info({ app }, 'scheduled backup skipped: the app is busy with another job');
    }
    return out;
  }

  function reportOf(due: Date, out: Record<string, AppOutcome>): RoundReport {
    const all = Object.entries(out);
    return {
      round: due.toISOString(),
      apps: all.length,
      failed: all.filter(([, o]) => o.state === 'failed').map(([app, o]) => ({ app, error: o.error ?? 'unknown error' })),
      unreadable: all.flatMap(([app, o]) => (o.unreadable ? [{ app, id: o.unreadable }] : [])),
    };
  }

  /** Runs a round when one is due and has not run yet; called every minute. What each app's backup became. */
  async function tick(): Promise<Record<string, AppOutcome['state']> | null> {
    if (running) return null;
    const now = d.clock();
    const due = lastDue(d.settings(), now);
    // A schedule switched on (or a first start) does not back up at once for a round long past: only one due within the hour.
    if (!due || lastRound() >= due.getTime() || now.getTime() - due.getTime() > 3_600_000) return null;
    running = true;
    try {
      writeFileAtomic(d.stateFile, `${JSON.stringify({ last_round: now.toISOString() })}\n`, 0o600);
      const out = await round();
      try {
        d.report?.(reportOf(due, out));
      } catch (err) {
        d.logger.warn({ err: errorMessage(err) }, 'the scheduled round could not be reported');
      }
      return Object.fromEntries(Object.entries(out).map(([app, o]) => [app, o.state]));
    } finally {
      running = false;
    }
  }

  return {
    tick,
    round,
    next: () => nextRun(d.settings(), d.clock()),
    start(everyMs = 60_000) {
      timer = setInterval(() => void tick(), everyMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
