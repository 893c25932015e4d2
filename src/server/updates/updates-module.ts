import type { EventBus } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import type { Engine } from '../engine/engine.ts';
import { notifyEvent } from '../notifications/notifier.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { stackNames } from '../stacks/read/listing.ts';
import { createImageChecker } from './image-check.ts';
import { registryHostOf } from './image-ref.ts';
import { createKeyedLimiter } from './limiter.ts';
import { createRegistryClient, type RegistryCredentials } from './registry-client.ts';
import { createStackUpdates } from './stack-updates.ts';
import type { UpdateResultsStore } from './update-results.repo.ts';

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
  /** Where each background round's available updates are announced (`notify.update_available`). */
  events?: EventBus;
  clock?: () => Date;
  /** Where the last known results outlive a restart (`update_results`). */
  store?: UpdateResultsStore;
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
    ...(deps.store ? { store: deps.store } : {}),
    onRound(checks) {
      // The daily round is named by its day, so a restart of Kade the same day does not announce an update again.
      const round = `update-check:${(deps.clock?.() ?? new Date()).toISOString().slice(0, 10)}`;
      for (const c of checks.filter((x) => x.update === 'update')) {
        const images = c.images.filter((i) => i.state === 'update').map((i) => i.image);
        deps.events?.emit(
          notifyEvent({
            kind: 'update_available',
            subject: c.name,
            round,
            message: `A newer image is available for ${c.name}: ${images.join(', ') || 'one of its images'}.`,
          }),
        );
      }
    },
  });
}
