/** Kade's update of itself (GET /api/update): availability, why it is impossible, and the last run of the helper. */
import { z } from 'zod';
import { UPDATE_CHANNELS } from './settings-keys.ts';

/**
 * Why Kade cannot update itself: no engine socket to hand to the helper; not running in a container;
 * the container's image was not pulled from a registry (a locally built `kade:latest`); the compose
 * labels do not say where the working directory (compose file and .env) is.
 */
export const SELF_UPDATE_REASONS = ['no_engine_socket', 'not_in_container', 'not_registry_image', 'no_working_dir'] as const;
export type SelfUpdateReason = (typeof SELF_UPDATE_REASONS)[number];

/** The helper's last run: `running` while it works, then `done`, `rolled_back` (the new version did not answer) or `failed`. */
export const SELF_UPDATE_STATES = ['running', 'done', 'rolled_back', 'failed'] as const;
export const SelfUpdateRun = z.object({
  action: z.enum(['update', 'rollback']),
  state: z.enum(SELF_UPDATE_STATES),
  from: z.string(),
  to: z.string(),
  at: z.string(),
  message: z.string(),
});
export type SelfUpdateRunT = z.infer<typeof SelfUpdateRun>;

export const SelfUpdateStatus = z.object({
  current: z.string(),
  /** The newest version on the channel in the registry; null when the registry could not be asked (see `check_error`). */
  latest: z.string().nullable(),
  available: z.boolean(),
  channel: z.enum(UPDATE_CHANNELS),
  checked_at: z.string().nullable(),
  possible: z.boolean(),
  /** English text of why updating is impossible; `reason_code` is its stable code. */
  reason: z.string().nullable(),
  reason_code: z.enum(SELF_UPDATE_REASONS).nullable(),
  /** The tag a rollback returns to. */
  previous: z.string().nullable(),
  /** The image Kade runs from (registry/repository:tag); null outside a container. */
  image: z.string().nullable(),
  check_error: z.string().nullable(),
  last: SelfUpdateRun.nullable(),
});
export type SelfUpdateStatusT = z.infer<typeof SelfUpdateStatus>;
