import type { Logger } from '../core/logger.ts';
import type { Engine } from '../engine/engine.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { stackNames } from '../stacks/listing.ts';
import { createImageChecker } from './image-check.ts';
import { registryHostOf } from './image-ref.ts';
import { createKeyedLimiter } from './limiter.ts';
import { createRegistryClient, type RegistryCredentials } from './registry-client.ts';
import { createStackUpdates } from './stack-updates.ts';

/** SPEC Limits: image checks against registries, 4 at a time per registry. */
export const CHECKS_PER_REGISTRY = 4;

/** The account of the settings, read when used so a saved change applies at once; null unless complete. */
export function registryCredentials(settings: Pick<SettingsService, 'registry'>): RegistryCredentials | null {
  const r = settings.registry();
  const host = registryHostOf(r.url);
  return host && r.user && r.token ? { host, user: r.user, token: r.token } : null;
}

/** The image checker and the per-stack results behind it, wired to the engine and the settings' account and UPDATE_CHECK_ENABLED. */
export function createUpdateChecks(deps: {
  engine: Engine;
  settings: Pick<SettingsService, 'registry' | 'updateCheckEnabled'>;
  libraryDir: string;
  logger: Logger;
}) {
  const registry = createRegistryClient({ credentials: () => registryCredentials(deps.settings) });
  const checker = createImageChecker({
    local: async (image) => (await deps.engine.inspectImage(image))?.repoDigests ?? null,
    remote: (ref) => registry.remoteDigest(ref),
    limiter: createKeyedLimiter(CHECKS_PER_REGISTRY),
    now: Date.now,
  });
  return createStackUpdates({
    engine: deps.engine,
    checker,
    stackNames: () => stackNames(deps.libraryDir),
    logger: deps.logger,
    now: Date.now,
    enabled: () => deps.settings.updateCheckEnabled(),
  });
}
