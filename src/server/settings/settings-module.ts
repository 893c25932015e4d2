import { SECRET_KEYS } from '../../shared/settings-keys.ts';
import type { Config } from '../config/config.ts';
import type { EventBus } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import type { Db } from '../db/db.ts';
import type { SecretBox } from '../db/secret-box.ts';
import { createSettingsRepo } from './settings.repo.ts';
import { createSettingsService, type SettingsDeps } from './settings.service.ts';

/** Builds the settings service from the boot config: its folders, time zone and AUTO_SYNC_ON_BOOT are the defaults. */
export function createSettingsModule(deps: {
  db: Db;
  events: EventBus;
  logger: Logger;
  config: Config;
  activeAuth?: SettingsDeps['activeAuth'];
  box?: SecretBox;
}) {
  const { config } = deps;
  return createSettingsService({
    repo: createSettingsRepo(deps.db, deps.box ?? null, SECRET_KEYS),
    events: deps.events,
    logger: deps.logger,
    defaults: { baseDir: config.baseDir, timezone: config.timezone, autoSyncOnBoot: config.autoSyncOnBoot },
    rules: { mountedBase: config.baseDir, engineSocket: 'socketPath' in config.engine ? config.engine.socketPath : undefined, uid: config.uid },
    stateDir: config.stateDir,
    ...(deps.activeAuth ? { activeAuth: deps.activeAuth } : {}),
    bootPaths: { BASE_DIR: config.baseDir, LIBRARY_DIR: config.libraryDir, DATA_DIR: config.dataDir, BACKUP_DIR: config.backupDir },
  });
}
