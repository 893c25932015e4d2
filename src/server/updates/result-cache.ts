import { createHash } from 'node:crypto';

export const HOUR_MS = 3_600_000;
export const WEEK_MS = 7 * 24 * HOUR_MS;

/**
 * A fixed offset of -max..+max whole hours derived from the key, so the results of many
 * images checked together expire on different hours instead of all in the same daily run.
 */
export function spreadMs(key: string, maxHours: number): number {
  const n = createHash('sha256').update(key).digest().readUInt32BE(0);
  return ((n % (2 * maxHours + 1)) - maxHours) * HOUR_MS;
}

interface Entry<V> {
  value: V;
  expires: number;
}

/** A plain expiring map; `ttl` may depend on the key (the spread). Expired entries are dropped on read. */
export function createTtlCache<V>(opts: { now: () => number; ttl: (key: string) => number }) {
  const map = new Map<string, Entry<V>>();
  return {
    get(key: string): V | undefined {
      const e = map.get(key);
      if (!e) return undefined;
      if (e.expires <= opts.now()) {
        map.delete(key);
        return undefined;
      }
      return e.value;
    },
    set(key: string, value: V): void {
      map.set(key, { value, expires: opts.now() + opts.ttl(key) });
    },
    delete: (key: string): boolean => map.delete(key),
    /** Removes every entry whose key the predicate accepts. */
    deleteWhere(pred: (key: string, value: V) => boolean): void {
      for (const [k, e] of map) if (pred(k, e.value)) map.delete(k);
    },
    has: (key: string): boolean => map.has(key),
    get size(): number {
      return map.size;
    },
  };
}

export type TtlCache<V> = ReturnType<typeof createTtlCache<V>>;
