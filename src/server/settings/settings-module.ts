import { SECRET_KEYS } from '../../shared/settings-keys.ts';
import type { Config } from '../config/config.ts';
import type { EventBus } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import type { Db } from '../db/db.ts';
import type { SecretBox } from '../db/secret-box.ts';
import { createSettingsRepo } from './settings.repo.ts';
import { createSettingsService, resolvePathsInUse, type SettingsDeps } from './settings.service.ts';
import { loadState } from './state.ts';

export interface SettingsModuleDeps {
  db: Db;
  events: EventBus;
  logger: Logger;
  config: Config;
  activeAuth?: SettingsDeps['activeAuth'];
  box?: SecretBox;
  /** The folders in use as `foldersInUse` resolved them; resolved again when absent. */
  pathsInUse?: SettingsDeps['pathsInUse'];
  /** The apps on a shared network (stacks/app-index.ts); none when absent. */
  networkUsers?: SettingsDeps['networkUsers'];
}

/** The settings service's dependencies from the boot config: its folders, time zone and AUTO_SYNC_ON_BOOT are the defaults. */
function depsOf(deps: SettingsModuleDeps): SettingsDeps {
  const { config } = deps;
  return {
    repo: createSettingsRepo(deps.db, deps.box ?? null, SECRET_KEYS),
    events: deps.events,
    logger: deps.logger,
    defaults: { baseDir: config.baseDir, timezone: config.timezone, autoSyncOnBoot: config.autoSyncOnBoot },
    rules: { mountedBase: config.baseDir, engineSocket: 'socketPath' in config.engine ? config.engine.socketPath : undefined, uid: config.uid },
    stateDir: config.stateDir,
    ...(deps.activeAuth ? { activeAuth: deps.activeAuth } : {}),
    bootPaths: { BASE_DIR: config.baseDir, LIBRARY_DIR: config.libraryDir, DATA_DIR: config.dataDir, BACKUP_DIR: config.backupDir },
    ...(deps.pathsInUse ? { pathsInUse: deps.pathsInUse } : {}),
    ...(deps.networkUsers ? { networkUsers: deps.networkUsers } : {}),
  };
}

/**
 * The folders this process works in, fixed at start (the stored ones where they can be used, else the boot
 * config's): resolved before the settings service, as the index of the apps' folders it asks stands on LIBRARY_DIR.
 */
export function foldersInUse(deps: SettingsModuleDeps) {
  const d = depsOf(deps);
  return resolvePathsInUse(loadState(d.repo, d.defaults), d);
}

/** Builds the settings service from the boot config. */
export function createSettingsModule(deps: SettingsModuleDeps) {
  return createSettingsService(depsOf(deps));
}
