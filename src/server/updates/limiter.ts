/**
 * At most `max` tasks at a time per key; different keys run side by side. Used per registry
 * host so one slow registry never holds up the checks against another.
 */
export function createKeyedLimiter(max: number) {
  const lanes = new Map<string, { active: number; waiting: (() => void)[] }>();

  async function acquire(key: string): Promise<void> {
    let lane = lanes.get(key);
    if (!lane) {
      lane = { active: 0, waiting: [] };
      lanes.set(key, lane);
    }
    if (lane.active < max) {
      lane.active++;
      return;
    }
    const l = lane;
    // The releasing task hands its place over, so `active` never dips and no newcomer jumps the queue.
    await new Promise<void>((resolve) => l.waiting.push(resolve));
  }

  function release(key: string): void {
    const lane = lanes.get(key);
    if (!lane) return;
    const next = lane.waiting.shift();
    if (next) next();
    else if (--lane.active === 0) lanes.delete(key);
  }

  return {
    async run<T>(key: string, task: () => Promise<T>): Promise<T> {
      await acquire(key);
      try {
        return await task();
      } finally {
        release(key);
      }
    },
    /** Tasks running now under `key`, for tests. */
    active: (key: string): number => lanes.get(key)?.active ?? 0,
  };
}

export type KeyedLimiter = ReturnType<typeof createKeyedLimiter>;
