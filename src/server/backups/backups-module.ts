/**
 * The backups as Kade runs them: the service over BACKUP_DIR, the schedule over the BACKUP_SCHEDULE_* settings,
 * and the schedule routes' view of those settings. Built once by the composition root.
 */
import { join } from 'node:path';
import type { BackupScheduleT, BackupT } from '../../shared/backups.ts';
import { requireRole } from '../core/authorize.ts';
import { isAppError } from '../core/errors.ts';
import type { Actor } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import { type NotifyRequest, notifyEvent } from '../notifications/notifier.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { type BackupsDeps, type BackupsService, createBackupsService } from './backups.service.ts';
import { type AppOutcome, createBackupSchedule, type RoundReport } from './schedule.ts';

export interface BackupsModuleDeps extends Omit<BackupsDeps, 'settings'> {
  settings: Pick<SettingsService, 'backupSettings' | 'update' | 'clockZone'>;
  paths: { BACKUP_DIR: string; DATA_DIR: string; LIBRARY_DIR: string };
  stateDir: string;
  logger: Logger;
  /** The apps a scheduled round backs up. */
  apps: () => string[];
}

/**
 * A scheduled round's messages (SPEC Events, "one message per round"): one naming every app whose backup failed,
 * one naming every archive that did not read back as written; the round is its due moment, so a restart within it
 * sends neither again. The jobs' own backup.failed and backup.verified events of the round send nothing.
 */
export function roundMessages(r: RoundReport): NotifyRequest[] {
  const out: NotifyRequest[] = [];
  const round = `schedule:${r.round}`;
  if (r.failed.length > 0)
    out.push({
      kind: 'backup_failed',
      subject: 'scheduled backups',
      round,
      title: `Scheduled backup failed for ${r.failed.map((f) => f.app).join(', ')}`,
      message: `The scheduled backup round of ${r.round} failed for ${r.failed.length} of ${r.apps} apps:\n${r.failed.map((f) => `- ${f.app}: ${f.error}`).join('\n')}`,
    });
  if (r.unreadable.length > 0)
    out.push({
      kind: 'archive_unreadable',
      subject: 'scheduled backups',
      round,
      title: `Unreadable backups from the scheduled round: ${r.unreadable.map((u) => u.id).join(', ')}`,
      message: `The scheduled backup round of ${r.round} made ${r.unreadable.length} ${r.unreadable.length === 1 ? 'backup' : 'backups'} that failed verification (the archive does not read back as written):\n${r.unreadable.map((u) => `- ${u.id} of ${u.app}`).join('\n')}`,
    });
  return out;
}

/** The service's settings, read from the settings module each time (a saved change applies to the next use). */
function serviceSettings(d: BackupsModuleDeps): BackupsDeps['settings'] {
  const plain = () => d.settings.backupSettings();
  return {
    backupDir: d.paths.BACKUP_DIR,
    dataDir: d.paths.DATA_DIR,
    libraryDir: d.paths.LIBRARY_DIR,
    appdata: () => plain().BACKUP_APPDATA,
    compression: () => plain().BACKUP_COMPRESSION,
    minFreeGb: () => plain().DISK_MIN_FREE_GB,
    warnPct: () => plain().DISK_WARN_PCT,
    offsiteDir: () => plain().BACKUP_OFFSITE_DIR,
    retention: () => ({ count: plain().BACKUP_RETENTION_COUNT, days: plain().BACKUP_RETENTION_DAYS }),
  };
}

const SYSTEM: Actor = { user: 'schedule', role: 'admin', ip: '' };

/** One app's backup of a scheduled round: busy when its slot is taken, failed with the job's error, ok (unreadable or not). */
async function scheduledBackup(service: BackupsService, jobs: BackupsModuleDeps['jobs'], stack: string): Promise<AppOutcome> {
  let job: ReturnType<typeof service.create>;
  let made: BackupT | null = null;
  try {
    job = service.create(SYSTEM, stack, 'schedule', (b) => {
      made = b;
    });
  } catch (err) {
    if (isAppError(err) && err.code === 'slot_busy') return { state: 'busy' };
    throw err;
  }
  const end = await jobs.wait(job.id);
  if (end.state !== 'succeeded') return { state: 'failed', error: end.error ?? `the job ended ${end.state}` };
  const b = made as BackupT | null;
  return b?.verified === false ? { state: 'ok', unreadable: b.id } : { state: 'ok' };
}

/** The schedule routes' view of the BACKUP_SCHEDULE_* and retention settings, with the next run. */
function scheduleView(s: BackupsModuleDeps['settings'], next: Date | null): BackupScheduleT {
  const b = s.backupSettings();
  return {
    mode: b.BACKUP_SCHEDULE_MODE,
    day: b.BACKUP_SCHEDULE_DAY,
    hour: b.BACKUP_SCHEDULE_HOUR,
    retention_count: b.BACKUP_RETENTION_COUNT,
    retention_days: b.BACKUP_RETENTION_DAYS,
    next_run: next?.toISOString() ?? null,
  };
}

type ScheduleInput = { [K in keyof Omit<BackupScheduleT, 'next_run'>]?: BackupScheduleT[K] | undefined };

/** The settings a schedule change saves: only the fields it names. */
function scheduleSettings(input: ScheduleInput) {
  return {
    ...(input.mode !== undefined ? { BACKUP_SCHEDULE_MODE: input.mode } : {}),
    ...(input.day !== undefined ? { BACKUP_SCHEDULE_DAY: input.day } : {}),
    ...(input.hour !== undefined ? { BACKUP_SCHEDULE_HOUR: input.hour } : {}),
    ...(input.retention_count !== undefined ? { BACKUP_RETENTION_COUNT: input.retention_count } : {}),
    ...(input.retention_days !== undefined ? { BACKUP_RETENTION_DAYS: input.retention_days } : {}),
  };
}

export function createBackupsModule(d: BackupsModuleDeps) {
  const plain = () => d.settings.backupSettings();
  const service = createBackupsService({ ...d, settings: serviceSettings(d) });
  const schedule = createBackupSchedule({
    settings: () => ({
      mode: plain().BACKUP_SCHEDULE_MODE,
      day: plain().BACKUP_SCHEDULE_DAY,
      hour: plain().BACKUP_SCHEDULE_HOUR,
      zone: d.settings.clockZone(),
    }),
    apps: d.apps,
    backup: (stack) => scheduledBackup(service, d.jobs, stack),
    report: (r) => {
      for (const e of roundMessages(r)) d.events.emit(notifyEvent(e));
    },
    stateFile: join(d.stateDir, 'backup-schedule.json'),
    logger: d.logger,
    clock: d.clock,
  });

  return {
    ...service,
    schedule(actor: Actor): BackupScheduleT {
      requireRole(actor, 'viewer', 'the backup schedule');
      return scheduleView(d.settings, schedule.next());
    },
    setSchedule(actor: Actor, input: ScheduleInput): BackupScheduleT {
      d.settings.update(actor, scheduleSettings(input));
      return scheduleView(d.settings, schedule.next());
    },
    startSchedule: () => schedule.start(),
    stopSchedule: () => schedule.stop(),
    tickSchedule: () => schedule.tick(),
  };
}

export type BackupsModule = ReturnType<typeof createBackupsModule>;
