import type { Db } from '../db/db.ts';
import type { UpdateState } from './image-check.ts';

/** The last known update state of an app and when it was learned (ms since the epoch). */
export interface KnownResult {
  state: UpdateState;
  checkedAt: number;
}

/** Where the last known results are kept between starts. */
export interface UpdateResultsStore {
  load(): Map<string, KnownResult>;
  save(stack: string, r: KnownResult): void;
  remove(stack: string): void;
}

const STATES: readonly string[] = ['update', 'current', 'unknown'];

/** The `update_results` table: one row per app, written at every check that gave an answer. */
export function createUpdateResultsRepo(db: Db): UpdateResultsStore {
  const all = db.prepare<[], { stack: string; state: string; checked_at: string }>('SELECT stack, state, checked_at FROM update_results');
  const put = db.prepare<[string, string, string]>(
    'INSERT INTO update_results (stack, state, checked_at) VALUES (?, ?, ?) ON CONFLICT(stack) DO UPDATE SET state = excluded.state, checked_at = excluded.checked_at',
  );
  const del = db.prepare<[string]>('DELETE FROM update_results WHERE stack = ?');
  return {
    load() {
      const out = new Map<string, KnownResult>();
      for (const r of all.all()) {
        const at = Date.parse(r.checked_at);
        if (STATES.includes(r.state) && !Number.isNaN(at)) out.set(r.stack, { state: r.state as UpdateState, checkedAt: at });
      }
      return out;
    },
    save: (stack, r) => void put.run(stack, r.state, new Date(r.checkedAt).toISOString()),
    remove: (stack) => void del.run(stack),
  };
}

/** A store that keeps nothing between starts (unit tests, a Kade without a database). */
export function memoryResultsStore(): UpdateResultsStore {
  const map = new Map<string, KnownResult>();
  return {
    load: () => new Map(map),
    save: (stack, r) => void map.set(stack, r),
    remove: (stack) => void map.delete(stack),
  };
}
