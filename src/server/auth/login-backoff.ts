import { createLoginLimiter } from './rate-limit.ts';

export interface BackoffOptions {
  /** Attempts an address may make per window (a hard limit, then wait for the window). */
  perAddress: { max: number; windowMs: number };
  /** Attempts on one account (from anywhere) before each next one waits; the wait doubles up to `maxDelayMs`. */
  perAccount: { free: number; windowMs: number; maxDelayMs: number };
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  perAddress: { max: 5, windowMs: 60_000 },
  perAccount: { free: 10, windowMs: 15 * 60_000, maxDelayMs: 60_000 },
};

const MAX_KNOWN_PER_ACCOUNT = 16;

/**
 * Password-guess back-off per client address AND per account. Both count attempts before the
 * password is checked (so parallel guesses cannot slip through) and never look at whether the
 * account exists, so the answer is the same for unknown users and wrong passwords.
 *
 * The address limit is hard: five attempts a minute. The account back-off is a delay, never a
 * lock-out: after ten attempts in 15 minutes each next one waits 1, 2, 4 … at most 60 seconds
 * after the previous. An address that signed in to the account before is spared the account
 * delay (it still has its own address limit), so guesses from elsewhere cannot keep the owner out.
 */
export function createLoginBackoff(opts: BackoffOptions = DEFAULT_BACKOFF) {
  const addresses = createLoginLimiter(opts.perAddress);
  const accounts = new Map<string, number[]>();
  const known = new Map<string, string[]>();
  const { free, windowMs, maxDelayMs } = opts.perAccount;

  const recent = (key: string, now: number) => (accounts.get(key) ?? []).filter((t) => now - t < windowMs);
  const sweep = (now: number) => {
    if (accounts.size < 1000) return;
    for (const key of accounts.keys()) if (recent(key, now).length === 0) accounts.delete(key);
  };
  const accountWait = (times: number[], now: number): number => {
    if (times.length < free) return 0;
    const delay = Math.min(maxDelayMs, 1000 * 2 ** (times.length - free));
    return Math.max(0, delay - (now - (times.at(-1) ?? now)));
  };

  return {
    /** Reserves one attempt and answers 0, or the milliseconds to wait (nothing reserved then). */
    take(account: string, ip: string, now: number): number {
      const key = account.toLowerCase();
      const times = recent(key, now);
      const spared = known.get(key)?.includes(ip) ?? false;
      const wait = spared ? 0 : accountWait(times, now);
      if (wait > 0) return wait;
      const addressWait = addresses.take(ip, now);
      if (addressWait > 0) return addressWait;
      times.push(now);
      accounts.set(key, times);
      sweep(now);
      return 0;
    },
    /** The attempt reserved at `at` succeeded: it stops counting, and the address is known for the account. */
    succeeded(account: string, ip: string, at: number): void {
      const key = account.toLowerCase();
      addresses.forgive(ip, at);
      const times = accounts.get(key);
      const i = times?.lastIndexOf(at) ?? -1;
      if (times && i >= 0) times.splice(i, 1);
      const list = (known.get(key) ?? []).filter((a) => a !== ip);
      list.push(ip);
      known.set(key, list.slice(-MAX_KNOWN_PER_ACCOUNT));
    },
  };
}
export type LoginBackoff = ReturnType<typeof createLoginBackoff>;
