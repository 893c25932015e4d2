import { join } from 'node:path';
import type { BackupSettings, BackupStacks } from '../../src/server/backups/backups.service.ts';
import { diskIO } from '../../src/server/stacks/store/disk-io.ts';
import { stackStoreOn } from '../../src/server/stacks/store/stack-store.ts';

/**
 * The backup settings of a test under `root` (folders `backups`, `appdata`, `stacks`): gzip, app data backed up,
 * no disk minimum, a warning at 90 %, no offsite copy, every backup kept; `over` changes any of them.
 */
export function backupSettingsIn(root: string, over: Partial<BackupSettings> = {}): BackupSettings {
  return {
    backupDir: join(root, 'backups'),
    dataDir: join(root, 'appdata'),
    libraryDir: join(root, 'stacks'),
    appdata: () => true,
    compression: () => 'gzip',
    minFreeGb: () => 0,
    warnPct: () => 90,
    offsiteDir: () => '',
    retention: () => ({ count: 0, days: 0 }),
    ...over,
  };
}

/**
 * The apps as the backups of a test see them: the one in `stackDir`, without a compose project or databases, whose
 * compose runs do nothing and whose files pass; a restore swaps folders with the stack store of `root/stacks`.
 * `over` changes any of it.
 */
export function backupStacksIn(root: string, stackDir: string, over: Partial<BackupStacks> = {}): BackupStacks {
  return {
    locate: () => ({ dir: stackDir, adopted: false, project: null, libraryPath: stackDir }),
    databases: async () => [],
    up: async () => undefined,
    stop: async () => undefined,
    down: async () => undefined,
    swap: stackStoreOn(diskIO(), { libraryDir: join(root, 'stacks'), stateDir: join(root, 'state') }).swap,
    judge: () => undefined,
    ...over,
  };
}
