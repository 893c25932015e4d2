/**
 * Sleeps `ms`; the `wakeSleep` it leaves on `holder` ends the sleep at once (a reconnect loop's backoff that a
 * stop must not wait out).
 */
export function wakeableSleep(holder: { wakeSleep: (() => void) | null }, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    holder.wakeSleep = () => {
      clearTimeout(t);
      resolve();
    };
  });
}
