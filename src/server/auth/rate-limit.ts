/**
 * Password-guess back-off per key (the client address for logins, the account for password
 * changes). It counts attempts, not users, and is consulted before any account is looked up,
 * so its answer never depends on whether an account exists.
 */
export function createLoginLimiter(opts: { max: number; windowMs: number }) {
  const attempts = new Map<string, number[]>();
  const recent = (key: string, now: number) => (attempts.get(key) ?? []).filter((t) => now - t < opts.windowMs);

  // Keys of clients that went away would otherwise stay forever.
  const sweep = (now: number) => {
    if (attempts.size < 1000) return;
    for (const key of attempts.keys()) if (recent(key, now).length === 0) attempts.delete(key);
  };

  return {
    /**
     * Reserves one attempt and answers 0, or answers the milliseconds to wait when the key has
     * used up its attempts. The attempt counts before the password is checked, so guesses sent
     * in parallel cannot all slip through while the first hash is still being computed.
     */
    take(key: string, now: number): number {
      const times = recent(key, now);
      if (times.length >= opts.max) {
        attempts.set(key, times);
        return Math.max(1, opts.windowMs - (now - (times[0] ?? now)));
      }
      times.push(now);
      attempts.set(key, times);
      sweep(now);
      return 0;
    },
    /**
     * Takes back the attempt reserved at `at` because it succeeded. Earlier failures keep
     * counting: a client cannot wash its failures away by logging into an account of its own.
     */
    forgive(key: string, at: number): void {
      const times = attempts.get(key);
      const i = times?.indexOf(at) ?? -1;
      if (times && i >= 0) times.splice(i, 1);
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;

/** Five wrong passwords per minute, then wait. */
export const createDefaultLimiter = (): LoginLimiter => createLoginLimiter({ max: 5, windowMs: 60_000 });
