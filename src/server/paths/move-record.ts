import { z } from 'zod';
import type { PathKey } from '../../shared/settings-keys.ts';
import type { JobDetail } from '../jobs/job-log.ts';

/** App names as the record holds them (checked again when read back after a crash). */
const NAME = /^[a-z0-9][a-z0-9_-]*$/;
export const KEYS = ['LIBRARY_DIR', 'DATA_DIR', 'BACKUP_DIR'] as const satisfies readonly PathKey[];
const MoveRecordSchema = z.object({
  moves: z.array(z.object({ key: z.enum(KEYS), from: z.string().startsWith('/'), to: z.string().startsWith('/') })),
  /** Apps that ran before the move: started again wherever the move ends. */
  running: z.array(z.string().regex(NAME)),
  /** Apps whose containers were removed to be made again from the new folders. */
  downed: z.array(z.string().regex(NAME)),
  /** Snapshots of apps whose files were rewritten in place (LIBRARY_DIR stays), by app. */
  snapshots: z.record(z.string().regex(NAME), z.string()),
  /** The seals of apps whose files were rewritten, as they were before (file-seal.ts): the undo puts them back. */
  seals: z.record(z.string().regex(NAME), z.string().nullable()).default({}),
  /** `copying` until the new folders are saved as the settings; `switched` after. */
  phase: z.enum(['copying', 'switched']),
});
/** What the job records before its first change, so a crash can be undone (or finished) at the next start. */
export type MoveRecord = z.infer<typeof MoveRecordSchema>;
export type KeyedMove = MoveRecord['moves'][number];
export type MovedFolders = Record<(typeof KEYS)[number], string>;

export function readRecord(detail: JobDetail): MoveRecord | null {
  if (typeof detail.path_move !== 'string') return null;
  const r = MoveRecordSchema.safeParse(safely(() => JSON.parse(detail.path_move as string) as unknown, null));
  return r.success ? r.data : null;
}

export function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
