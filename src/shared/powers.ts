/** Powers over the host a compose file can hand an app (compose-policy.ts), as the API reports them. */
import { z } from 'zod';

export const POWERS = [
  'privileged',
  'network_mode',
  'pid',
  'ipc',
  'uts',
  'userns_mode',
  'cgroup',
  'cap_add',
  'security_opt',
  'devices',
  /** A bind of the engine's socket: full control of every container on this host. */
  'engine_socket',
] as const;
export type Power = (typeof POWERS)[number];

/**
 * One power one service gets, with the value that gives it (`host`, `SYS_ADMIN`, `seccomp=unconfined`, `/dev/kvm`,
 * the socket's path).
 */
export const PowerUse = z.object({ service: z.string(), power: z.enum(POWERS), value: z.string() });
export type PowerUseT = z.infer<typeof PowerUse>;

/** POST /api/store/apps/{repo}/{app}/powers: what the app would get, and whether the asking user may install it. */
export const AppPowers = z.object({
  powers: z.array(PowerUse),
  /** False when the powers need an admin (ALLOW_PRIVILEGED_APPS is `admins`) and the user is none. */
  allowed: z.boolean(),
});
export type AppPowersT = z.infer<typeof AppPowers>;

/**
 * What the store shows of an app (GET /api/store/apps `powers`): each power its template gives with the values the
 * form starts with, as the install's review names them. `host_path` is a host folder or file the template itself
 * binds outside the app's own folders (`/` read-only, `/etc/passwd`): an admin allows it at install. The install
 * judges again with the values given; this is what to expect.
 */
export const STORE_POWERS = [...POWERS, 'host_path'] as const;
export const StorePower = z.object({
  power: z.enum(STORE_POWERS),
  value: z.string(),
  /** A `host_path` the container can only read. */
  read_only: z.boolean(),
});
export type StorePowerT = z.infer<typeof StorePower>;

/**
 * POST /api/store/apps/{repo}/{app}/host-paths: the host folders the app would use that the bind policy refuses for
 * it (outside its own data folder, its own folder and ALLOWED_HOST_DIRS), as the install would judge them now.
 */
export const HostPathReview = z.object({
  /** The app's own data folder, DATA_DIR/<name>. */
  own: z.string(),
  refused: z.array(
    z.object({
      /** The form field the path was typed in; null when the template itself names the folder. */
      field: z.string().nullable(),
      path: z.string(),
      /** `other_app`: in another installed app's data (never allowed); `not_allowed`: outside the allowed places. */
      reason: z.enum(['not_allowed', 'other_app']),
      /** The app whose data folder holds the path, for `other_app`. */
      app: z.string().nullable(),
      /** Every bind of the path is read-only (`:ro`): the app can read it, not change it. */
      read_only: z.boolean(),
    }),
  ),
  /** Whether the asking user may allow the `not_allowed` ones for this install (admins: confirm_outside_paths, audited). */
  may_confirm: z.boolean(),
});
export type HostPathReviewT = z.infer<typeof HostPathReview>;
