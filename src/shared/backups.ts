/** Shapes of the backup routes (API.md: Backups), shared by the server and the interface. */
import { z } from 'zod';
import { SCHEDULE_MODES } from './settings-keys.ts';
import { ConfirmOutsidePaths } from './stack-config.ts';

/** `<stack>-YYYYMMDD-HHMMSS[-N]`: the archive's name without its extension. */
export const BACKUP_ID = /^[a-z0-9][a-z0-9_-]{0,62}-\d{8}-\d{6}(-\d{1,3})?$/;
export const BackupIdParam = z.object({ id: z.string().regex(BACKUP_ID, 'a backup id such as myapp-20261125-031500') });

export const Backup = z.object({
  id: z.string(),
  stack: z.string(),
  created_at: z.string(),
  /** The archive's file name in BACKUP_DIR and as downloaded: `<id>.tar.gz` or `<id>.tar.zst` (BACKUP_COMPRESSION when it was made). */
  file: z.string(),
  /** Bytes of the archive. */
  size: z.number().int(),
  /** null: never verified; otherwise the result of the last verification. */
  verified: z.boolean().nullable(),
  verified_at: z.string().nullable(),
  /** Files that could not be read (the rest was backed up). */
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  /** The databases dumped into the archive, by service. */
  databases: z.array(z.object({ service: z.string(), kind: z.string() })),
  /** Why it was made: manual, schedule, update, delete. */
  reason: z.string(),
  appdata: z.boolean(),
  /** Where the offsite copy went, or why it did not. */
  offsite: z.string().nullable(),
});
export type BackupT = z.infer<typeof Backup>;
export const BackupList = z.array(Backup);
export const BackupQuery = z.object({ stack: z.string().max(64).optional() });
export const BackupCreate = z.object({ stack: z.string().min(1).max(64) });
/**
 * POST of a restore (body optional): the archive's compose file and `.env` are judged like an install by the one who
 * restores, so host paths outside the app need an admin's `confirm_outside_paths` (the `confirm` param of the refusal).
 */
export const BackupRestore = z.object({ confirm_outside_paths: ConfirmOutsidePaths });

export const BackupSchedule = z.object({
  mode: z.enum(SCHEDULE_MODES),
  /** 0 = Sunday. */
  day: z.number().int().min(0).max(6),
  hour: z.number().int().min(0).max(23),
  /** Backups kept per app; 0 keeps every one (by count). */
  retention_count: z.number().int().min(0).max(1000),
  /** Backups older than this many days are removed; 0 keeps them (by age). The newest of an app always stays. */
  retention_days: z.number().int().min(0).max(3650),
  /** When the next scheduled round starts; null when off. */
  next_run: z.string().nullable(),
});
export type BackupScheduleT = z.infer<typeof BackupSchedule>;
export const BackupScheduleUpdate = BackupSchedule.omit({ next_run: true }).partial();

/** GET /api/backups/disk: the backup folder's file system, for the disk bar. */
export const DiskState = z.object({
  path: z.string(),
  total: z.number(),
  free: z.number(),
  used_pct: z.number(),
  /** DISK_WARN_PCT: the bar turns red at this usage. */
  warn_pct: z.number(),
  /** DISK_MIN_FREE_GB: a backup that would leave less free is refused. */
  min_free_gb: z.number(),
});
export type DiskStateT = z.infer<typeof DiskState>;
