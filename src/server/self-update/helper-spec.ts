import { z } from 'zod';

/** What Kade hands its update helper (as JSON in KADE_SELF_UPDATE): one switch of SVC_TAG and its safety net. */
export const HelperSpec = z.object({
  action: z.enum(['update', 'rollback']),
  /** The tag running now, written back when the new one does not answer. */
  from: z.string().min(1),
  to: z.string().min(1),
  project: z.string().min(1),
  service: z.string().min(1),
  workingDir: z.string().startsWith('/'),
  configFiles: z.array(z.string().startsWith('/')).min(1),
  socketPath: z.string().startsWith('/'),
  /** SVC_DATA as mounted into the helper; null when Kade's is not a mount (then no result is left behind). */
  stateDir: z.string().nullable(),
  /** The rollback target Kade remembers now; kept when this run does not succeed. */
  previous: z.string().nullable(),
  /** How long the new container may take to answer /healthz with its version. */
  healthSeconds: z.number().int().positive(),
  /** A pause before the recreate, so Kade's answer and job end reach the client first. */
  delayMs: z.number().int().min(0),
});
export type HelperSpecT = z.infer<typeof HelperSpec>;

export const HELPER_ENV = 'KADE_SELF_UPDATE';
/** The script in the image (dist/ is compiled from src/). */
export const HELPER_SCRIPT = 'dist/server/self-update/helper-main.js';
