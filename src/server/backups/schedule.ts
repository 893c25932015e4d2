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

export interface ScheduleDeps {
  settings: () => ScheduleSettings;
  apps: () => string[];
  /** Starts a backup of one app and waits for it; throws `slot_busy` when the app is busy. */
  backup: (stack: string) => Promise<'ok' | 'busy' | 'failed'>;
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
  async function round(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const app of d.apps()) {
      try {
        out[app] = await d.backup(app);
      } catch (err) {
        out[app] = 'failed';
        d.logger.warn({ app, err: errorMessage(err) }, 'scheduled backup failed');
      }
      if (out[app] === 'busy') d.logger.info({ app }, 'scheduled backup skipped: the app is busy with another job');
    }
    return out;
  }

  /** Runs a round when one is due and has not run yet; called every minute. */
  async function tick(): Promise<Record<string, string> | null> {
    if (running) return null;
    const now = d.clock();
    const due = lastDue(d.settings(), now);
    // A schedule switched on (or a first start) does not back up at once for a round long past: only one due within the hour.
    if (!due || lastRound() >= due.getTime() || now.getTime() - due.getTime() > 3_600_000) return null;
    running = true;
    try {
      writeFileAtomic(d.stateFile, `${JSON.stringify({ last_round: now.toISOString() })}\n`, 0o600);
      return await round();
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
