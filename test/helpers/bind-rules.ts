import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BindRules } from '../../src/server/settings/bind-rules.ts';

/** The bind rules of Kade's folders in a fresh temp folder (`prefix`), with `media` its one allowed host folder. */
export function bindRulesIn(prefix: string): { root: string; rules: BindRules } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const rules: BindRules = {
    dataDir: join(root, 'appdata'),
    libraryDir: join(root, 'stacks'),
    stateDir: join(root, 'state'),
    backupDir: join(root, 'backups'),
    engineSocket: '/var/run/docker.sock',
    allowedHostDirs: () => [join(root, 'media')],
  };
  return { root, rules };
}
