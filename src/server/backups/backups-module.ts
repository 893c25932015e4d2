/**
 * The backups as Kade runs them: the service over BACKUP_DIR, the schedule over the BACKUP_SCHEDULE_* settings,
 * and the schedule routes' view of those settings. Built once by the composition root.
 */
import { join } from 'node:path';
import type { BackupScheduleT } from '../../shared/backups.ts';
import { requireRole } from '../core/authorize.ts';
import { isAppError } from '../core/errors.ts';
import type { Actor } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { type BackupsDeps, createBackupsService } from './backups.service.ts';
import { createBackupSchedule } from './schedule.ts';

export interface BackupsModuleDeps extends Omit<BackupsDeps, 'settings'> {
  settings: SettingsService;
  paths: { BACKUP_DIR: string; DATA_DIR: string; LIBRARY_DIR: string };
  stateDir: string;
  logger: Logger;
  /** The apps a scheduled round backs up. */
  apps: () => string[];
}

export function createBackupsModule(d: BackupsModuleDeps) {
  const plain = () => d.settings.backupSettings();
  const service = createBackupsService({
    ...d,
    settings: {
      backupDir: d.paths.BACKUP_DIR,
      dataDir: d.paths.DATA_DIR,
      libraryDir: d.paths.LIBRARY_DIR,
      appdata: () => plain().BACKUP_APPDATA,
      compression: () => plain().BACKUP_COMPRESSION,
      minFreeGb: () => plain().DISK_MIN_FREE_GB,
      warnPct: () => plain().DISK_WARN_PCT,
      offsiteDir: () => plain().BACKUP_OFFSITE_DIR,
      retention: () => ({ count: plain().BACKUP_RETENTION_COUNT, days: plain().BACKUP_RETENTION_DAYS }),
    },
  });
  const system: Actor = { user: 'schedule', role: 'admin', ip: '' };
  const schedule = createBackupSchedule({
    settings: () => ({
      mode: plain().BACKUP_SCHEDULE_MODE,
      day: plain().BACKUP_SCHEDULE_DAY,
      hour: plain().BACKUP_SCHEDULE_HOUR,
      zone: d.settings.clockZone(),
    }),
    apps: d.apps,
    async backup(stack) {
      let job: ReturnType<typeof service.create>;
      try {
        job = service.create(system, stack, 'schedule');
      } catch (err) {
        if (isAppError(err) && err.code === 'slot_busy') return 'busy';
        throw err;
      }
      const end = await d.jobs.wait(job.id);
      return end.state === 'succeeded' ? 'ok' : 'failed';
    },
    stateFile: join(d.stateDir, 'backup-schedule.json'),
    logger: d.logger,
    clock: d.clock,
  });

  function view(): BackupScheduleT {
    const s = plain();
    return {
      mode: s.BACKUP_SCHEDULE_MODE,
      day: s.BACKUP_SCHEDULE_DAY,
      hour: s.BACKUP_SCHEDULE_HOUR,
      retention_count: s.BACKUP_RETENTION_COUNT,
      retention_days: s.BACKUP_RETENTION_DAYS,
      next_run: schedule.next()?.toISOString() ?? null,
    };
  }

  return {
    ...service,
    schedule(actor: Actor): BackupScheduleT {
      requireRole(actor, 'viewer', 'the backup schedule');
      return view();
    },
    setSchedule(actor: Actor, input: { [K in keyof Omit<BackupScheduleT, 'next_run'>]?: BackupScheduleT[K] | undefined }): BackupScheduleT {
      d.settings.update(actor, {
        ...(input.mode !== undefined ? { BACKUP_SCHEDULE_MODE: input.mode } : {}),
        ...(input.day !== undefined ? { BACKUP_SCHEDULE_DAY: input.day } : {}),
        ...(input.hour !== undefined ? { BACKUP_SCHEDULE_HOUR: input.hour } : {}),
        ...(input.retention_count !== undefined ? { BACKUP_RETENTION_COUNT: input.retention_count } : {}),
        ...(input.retention_days !== undefined ? { BACKUP_RETENTION_DAYS: input.retention_days } : {}),
      });
      return view();
    },
    startSchedule: () => schedule.start(),
    stopSchedule: () => schedule.stop(),
    tickSchedule: () => schedule.tick(),
  };
}

export type BackupsModule = ReturnType<typeof createBackupsModule>;
