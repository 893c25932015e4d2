import { z } from 'zod';

/**
 * The findings' stable codes (GET /api/doctor): the interface shows `doctor.msg.<code>` in the user's language with
 * the finding's params, the server's English `message` for a code it does not know. `mount_*` and `own_*` codes come
 * in two wordings, Kade in its container (`_container`) or started from a checkout (`_checkout`), where there is
 * no container to speak of.
 */
export const DOCTOR_CODES = [
  'engine_ok',
  'engine_down',
  'engine_no_compose',
  'own_checkout',
  'own_state',
  'own_state_health',
  'own_not_found',
  'mount_source',
  'mount_missing_here_container',
  'mount_missing_here_checkout',
  'mount_empty_here_container',
  'mount_empty_here_checkout',
  'mount_missing_both_container',
  'mount_missing_both_checkout',
  'mount_missing_container',
  'mount_missing_checkout',
  'mount_unusable_container',
  'mount_unusable_checkout',
  'mount_unseen_container',
  'mount_unseen_checkout',
  'mount_gone_outside_container',
  'mount_gone_outside_checkout',
  'mount_differ_container',
  'mount_differ_checkout',
  'mount_ok_container',
  'mount_ok_checkout',
  'account_no_ids',
  'account_unset',
  'account_mismatch',
  'account_ok',
  'disk_ok',
  'disk_low',
  'disk_unknown',
  'path_unusable',
  'path_not_stored',
  'path_ok',
  'stacks',
  'stacks_odd',
  'verdict_app',
  'verdict_app_no_compose',
  'verdict_adopted',
  'verdict_adopted_no_compose',
  'verdict_hidden',
  'verdict_invalid_name',
  'verdict_broken_link',
  'verdict_not_a_folder',
  'verdict_link_not_a_folder',
  'app_files_ok',
  'app_files_refused',
  'app_refused',
  'store_ok',
  'store_empty',
  'store_unreadable',
] as const;
export type DoctorCode = (typeof DOCTOR_CODES)[number];

/** A finding's words as a code and its safe values: names, paths (in repr form), counts, the engine's own words. */
const Params = z.record(z.string(), z.union([z.string(), z.number()]));
export type DoctorParams = z.infer<typeof Params>;

/** One finding of the doctor (GET /api/doctor, `install.sh --doctor`): what is wrong and what fixes it. */
export const DoctorCheck = z.object({
  /** Stable id: `engine`, `own_container`, `mount:<path>`, `account`, `disk:<key>`, `paths:<key>`, `stacks`, `app_files`, `store`. */
  id: z.string(),
  status: z.enum(['ok', 'warn', 'error']),
  /** In English (the command line's text); `code` and `params` say the same for the interface to translate. */
  message: z.string(),
  code: z.enum(DOCTOR_CODES),
  params: Params,
  /** The command or `.env` line that fixes it; null when nothing needs fixing or no command would. */
  fix: z.string().nullable(),
  /** Further lines, e.g. the verdict on each folder under LIBRARY_DIR. */
  details: z.array(z.string()).optional(),
  /** The same lines as codes and params, one for each of `details`. */
  detail_codes: z.array(z.object({ code: z.enum(DOCTOR_CODES), params: Params })).optional(),
});
export type DoctorCheckT = z.infer<typeof DoctorCheck>;

export const DoctorReport = z.object({
  /** False when any check is an error (warnings keep it true). */
  ok: z.boolean(),
  checks: z.array(DoctorCheck),
});
export type DoctorReportT = z.infer<typeof DoctorReport>;
