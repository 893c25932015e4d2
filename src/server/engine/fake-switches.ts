import { createGate } from './fake-events.ts';

export interface FaultOptions {
  /** What the call throws; the fake's own default (an adapter that cannot be reached) when absent. */
  error?: Error;
  /** The nth call from now (1 = the next); without it, every call. */
  nth?: number;
  /** How many calls in a row from the nth on; default 1 with `nth`, every one without. */
  times?: number;
}

/**
 * The switches of a fake adapter (fake-engine.ts, fake-compose.ts): fail a named call ('*': any call) before it
 * acts, and hold a call's answer back until released.
 */
export function createSwitches<M extends string>() {
  const faults: { method: M | '*'; skip: number; left: number; error: Error | undefined }[] = [];
  const gates = new Map<M, ReturnType<typeof createGate>>();
  return {
    /** Sets a fault; the function it returns ends it. */
    failOn(method: M | '*', o: FaultOptions = {}): () => void {
      const fault = { method, skip: (o.nth ?? 1) - 1, left: o.times ?? (o.nth === undefined ? Number.POSITIVE_INFINITY : 1), error: o.error };
      faults.push(fault);
      return () => {
        if (faults.includes(fault)) faults.splice(faults.indexOf(fault), 1);
      };
    },
    /** Whether this call of `method` fails: `{ error }` (undefined: the fake's default) when it does, else null. */
    fault(method: M): { error: Error | undefined } | null {
      const fault = faults.find((f) => f.method === method || f.method === '*');
      if (!fault) return null;
      if (fault.skip > 0) {
        fault.skip -= 1;
        return null;
      }
      fault.left -= 1;
      if (fault.left <= 0) faults.splice(faults.indexOf(fault), 1);
      return { error: fault.error };
    },
    /** Calls of `method` from now on wait at `passed` until the returned function is called. */
    hold(method: M): () => void {
      const gate = gates.get(method) ?? createGate();
      gates.set(method, gate);
      return gate.hold();
    },
    passed: (method: M): Promise<void> => gates.get(method)?.passed() ?? Promise.resolve(),
  };
}
