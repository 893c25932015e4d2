/** Powers over the host a compose file can hand an app (compose-policy.ts), as the API reports them. */
import { z } from 'zod';

export const POWERS = ['privileged', 'network_mode', 'pid', 'ipc', 'uts', 'userns_mode', 'cgroup', 'cap_add', 'security_opt', 'devices'] as const;
export type Power = (typeof POWERS)[number];

/** One power one service gets, with the value that gives it (`host`, `SYS_ADMIN`, `seccomp=unconfined`, `/dev/kvm`). */
export const PowerUse = z.object({ service: z.string(), power: z.enum(POWERS), value: z.string() });
export type PowerUseT = z.infer<typeof PowerUse>;

/** POST /api/store/apps/{repo}/{app}/powers: what the app would get, and whether the asking user may install it. */
export const AppPowers = z.object({
  powers: z.array(PowerUse),
  /** False when the powers need an admin (ALLOW_PRIVILEGED_APPS is `admins`) and the user is none. */
  allowed: z.boolean(),
});
export type AppPowersT = z.infer<typeof AppPowers>;
