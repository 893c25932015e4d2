import type { z } from 'zod';
import type { BackupScheduleT, BackupScheduleUpdate, DiskStateT } from '../../../shared/backups.ts';
import { request } from '../../api.ts';

export type { BackupScheduleT, DiskStateT };
export type BackupScheduleUpdateT = z.infer<typeof BackupScheduleUpdate>;

/** The backup folder's file system: the disk bar. */
export const getDisk = (): Promise<DiskStateT> => request<DiskStateT>('GET', '/api/backups/disk');

export const getSchedule = (): Promise<BackupScheduleT> => request<BackupScheduleT>('GET', '/api/backups/schedule');

/** Admins only; takes effect at once and answers the schedule with its next run. */
export const putSchedule = (body: BackupScheduleUpdateT): Promise<BackupScheduleT> => request<BackupScheduleT>('PUT', '/api/backups/schedule', body);
