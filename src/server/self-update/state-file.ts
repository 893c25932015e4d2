import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SelfUpdateRun, type SelfUpdateRunT } from '../../shared/self-update.ts';
import { writeFileAtomic } from '../core/fs-atomic.ts';

/**
 * What Kade and its update helper tell each other across the recreate, in SVC_DATA (the one folder
 * both see): the tag a rollback returns to and the helper's last run. The helper writes it as root;
 * 0644 keeps it readable for Kade's account (the entrypoint gives SVC_DATA back to it at each start).
 */
export interface SelfUpdateState {
  previous: string | null;
  last: SelfUpdateRunT | null;
}

export const STATE_FILE = 'self-update.json';

export function readUpdateState(stateDir: string): SelfUpdateState {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(stateDir, STATE_FILE), 'utf8'));
  } catch {
    // Never updated yet (or a hand-damaged file): nothing to roll back to.
    return { previous: null, last: null };
  }
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const last = SelfUpdateRun.safeParse(o.last);
  return { previous: typeof o.previous === 'string' && o.previous !== '' ? o.previous : null, last: last.success ? last.data : null };
}

export function writeUpdateState(stateDir: string, state: SelfUpdateState): void {
  writeFileAtomic(join(stateDir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`, 0o644);
}
