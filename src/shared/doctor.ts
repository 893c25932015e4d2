import { z } from 'zod';

/** One finding of the doctor (GET /api/doctor, `install.sh --doctor`): what is wrong and what fixes it. */
export const DoctorCheck = z.object({
  /** Stable id: `engine`, `own_container`, `mount:<path>`, `account`, `disk:<key>`, `paths:<key>`, `stacks`, `app_files`, `store`. */
  id: z.string(),
  status: z.enum(['ok', 'warn', 'error']),
  message: z.string(),
  /** The command or `.env` line that fixes it; null when nothing needs fixing or no command would. */
  fix: z.string().nullable(),
  /** Further lines, e.g. the verdict on each folder under LIBRARY_DIR. */
  details: z.array(z.string()).optional(),
});
export type DoctorCheckT = z.infer<typeof DoctorCheck>;

export const DoctorReport = z.object({
  /** False when any check is an error (warnings keep it true). */
  ok: z.boolean(),
  checks: z.array(DoctorCheck),
});
export type DoctorReportT = z.infer<typeof DoctorReport>;
