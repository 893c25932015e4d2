import { createLoginLimiter } from './rate-limit.ts';

export interface BackoffOptions {
  /** Attempts an address may make per window, on any accounts (a hard limit, then wait for the window). */
  perAddress: { max: number; windowMs: number };
  /** Attempts a known device may make on its own account per window; nothing else draws on this budget. */
  perDevice: { max: number; windowMs: number };
  /**
   * Attempts on one account (from anywhere) before each address must wait between its own attempts
   * on it; the wait doubles per further attempt, up to `maxDelayMs`.
   */
  perAccount: { free: number; windowMs: number; maxDelayMs: number };
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  perAddress: { max: 5, windowMs: 60_000 },
  perDevice: { max: 5, windowMs: 60_000 },
  perAccount: { free: 10, windowMs: 15 * 60_000, maxDelayMs: 30_000 },
};

/**
 * Password-guess back-off, never a lock-out. Every budget counts attempts before the password is
 * checked (so parallel guesses cannot slip through) and never looks at whether the account
 * exists, so the answer is the same for unknown users and wrong passwords.
 *
 * - A known device (a browser that signed in to the account before, by its cookie) has a budget
 *   of its own per account: five attempts a minute. Nothing anyone else does draws on it, so
 *   guesses from any number of addresses never delay the owner's own browser.
 * - Anyone else: five attempts a minute per address (on any accounts), and once an account had
 *   ten attempts in 15 minutes, each address waits 1, 2, 4 … at most 30 seconds between its own
 *   attempts on that account; an address new to it first waits that long once (its first attempt
 *   only registers it), so rotating addresses slows down too. The wait runs per account and
 *   address: it is never a slot the attacker can take first, so the owner from an address of its
 *   own gets in on the second try, when the first one's Retry-After (at most 30 seconds) says.
 */
export function createLoginBackoff(opts: BackoffOptions = DEFAULT_BACKOFF) {
  const addresses = createLoginLimiter(opts.perAddress);
  const devices = createLoginLimiter(opts.perDevice);
  const accounts = new Map<string, number[]>();
  // Per account and address: when the address may next try the account. Set when it tries, or is
  // first told to wait; others' attempts later never push it back, so a Retry-After holds.
  const contacts = new Map<string, number>();
  const { free, windowMs, maxDelayMs } = opts.perAccount;

  const recent = (key: string, now: number) => (accounts.get(key) ?? []).filter((t) => now - t < windowMs);
  const sweep = (now: number) => {
    if (accounts.size >= 1000) for (const key of accounts.keys()) if (recent(key, now).length === 0) accounts.delete(key);
    if (contacts.size >= 1000) for (const [key, next] of contacts) if (now - next >= windowMs) contacts.delete(key);
  };
  const accountDelay = (attempts: number) => (attempts < free ? 0 : Math.min(maxDelayMs, 1000 * 2 ** (attempts - free)));

  /** The wait the account's attempts put on this address: its own turn, never a shared one. */
  const contactWait = (contact: string, delay: number, now: number): number => {
    if (delay === 0) return 0;
    const next = contacts.get(contact);
    if (next === undefined || now - next >= windowMs) {
      contacts.set(contact, now + delay);
      return delay;
    }
    return Math.max(0, next - now);
  };

  return {
    /**
     * Reserves one attempt and answers 0, or the milliseconds to wait (nothing reserved then).
     * `device` is the key of a device known for this account (checked by the caller), or null.
     */
    take(account: string, ip: string, now: number, device: string | null = null): number {
      const key = account.toLowerCase();
      if (device) return devices.take(`${key}\n${device}`, now);
      const times = recent(key, now);
      const contact = `${key}\n${ip}`;
      const wait = contactWait(contact, accountDelay(times.length), now);
      if (wait > 0) return wait;
      const addressWait = addresses.take(ip, now);
      if (addressWait > 0) return addressWait;
      times.push(now);
      accounts.set(key, times);
      contacts.set(contact, now + accountDelay(times.length));
      sweep(now);
      return 0;
    },
    /** The attempt reserved at `at` succeeded: it stops counting (earlier failures still count). */
    succeeded(account: string, ip: string, at: number, device: string | null = null): void {
      const key = account.toLowerCase();
      if (device) {
        devices.forgive(`${key}\n${device}`, at);
        return;
      }
      addresses.forgive(ip, at);
      const times = accounts.get(key);
      const i = times?.lastIndexOf(at) ?? -1;
      if (times && i >= 0) times.splice(i, 1);
    },
  };
}
export type LoginBackoff = ReturnType<typeof createLoginBackoff>;
