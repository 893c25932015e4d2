import type { EventBus } from '../core/events.ts';
import type { Db } from '../db/db.ts';
import type { SecretBox } from '../db/secret-box.ts';
import { createAuthService } from './auth.service.ts';
import { createAuthKeysRepo } from './auth-keys.repo.ts';
import { createDevicesRepo } from './devices.repo.ts';
import { createLoginBackoff } from './login-backoff.ts';
import { createDefaultLimiter } from './rate-limit.ts';
import { createSessionsRepo } from './sessions.repo.ts';
import { createSsoResolver } from './sso.ts';
import type { SsoConfig } from './sso-config.ts';
import { createUsersRepo } from './users.repo.ts';
import { createUsersService } from './users.service.ts';

/**
 * Builds the auth domain: repositories, the login back-off (per known device, address and account), the
 * password-change limiter (per account), single sign-on, and the two services the routes call.
 */
export function createAuthModule(deps: { db: Db; box?: SecretBox; events: EventBus; clock: () => Date; ssoConfig: () => SsoConfig | null }) {
  const { db, events, clock } = deps;
  const users = createUsersRepo(db);
  const sessions = createSessionsRepo(db);
  const keys = createAuthKeysRepo(db, deps.box ?? null);
  const limiter = createDefaultLimiter();
  const sso = createSsoResolver({ config: deps.ssoConfig, users, csrfKey: () => keys.key('sso_csrf') });
  return {
    auth: createAuthService({ users, sessions, devices: createDevicesRepo(db), events, clock, backoff: createLoginBackoff(), sso }),
    users: createUsersService({ users, sessions, events, clock, limiter }),
  };
}
