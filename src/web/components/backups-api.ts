import type { JobT } from '../../shared/api.ts';
import type { BackupT } from '../../shared/backups.ts';
import { request } from '../api.ts';

export type { BackupT };

const base = '/api/backups';
const one = (id: string) => `${base}/${encodeURIComponent(id)}`;

/** Newest first; `stack` narrows the list to one app. */
export const listBackups = (stack?: string): Promise<BackupT[]> =>
  request<BackupT[]>('GET', stack ? `${base}?${new URLSearchParams({ stack }).toString()}` : base);

/** 507 disk_full (the detail names the sizes) when the backup would leave less than DISK_MIN_FREE_GB free. */
export async function createBackup(stack: string): Promise<JobT> {
  return (await request<{ job: JobT }>('POST', base, { stack })).job;
}

export async function verifyBackup(id: string): Promise<JobT> {
  return (await request<{ job: JobT }>('POST', `${one(id)}/verify`)).job;
}

/**
 * Replaces the app's folder, data and databases by the backup's; a failure puts the old state back. Refused before
 * anything moves when the backup's compose asks for what the user may not give (app_powers_refused, forbidden_path);
 * an admin allows the host paths of a forbidden_path refusal by sending them back as `confirm`.
 */
export async function restoreBackup(id: string, confirm?: string[]): Promise<JobT> {
  return (await request<{ job: JobT }>('POST', `${one(id)}/restore`, confirm ? { confirm_outside_paths: confirm } : undefined)).job;
}

export const deleteBackup = (id: string): Promise<void> => request<undefined>('DELETE', one(id));

/** A plain link: the browser sends the session cookie and saves the archive itself. */
export const downloadHref = (id: string): string => `${one(id)}/download`;
