/**
 * Failed-login back-off per client address. Counts failures, not users, so the answer
 * never depends on whether an account exists.
 */
export function createLoginLimiter(opts: { max: number; windowMs: number }) {
  const failures = new Map<string, number[]>();
  const recent = (key: string, now: number) => (failures.get(key) ?? []).filter((t) => now - t < opts.windowMs);
  return {
    /** Milliseconds the client must wait, or 0. */
    retryAfter(key: string, now: number): number {
      const times = recent(key, now);
      if (times.length < opts.max) return 0;
      return opts.windowMs - (now - (times[0] ?? now));
    },
    fail(key: string, now: number): void {
      const times = recent(key, now);
      times.push(now);
      failures.set(key, times);
    },
    reset(key: string): void {
      failures.delete(key);
    },
  };
}
