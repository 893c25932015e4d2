/**
 * Named points where a fault test stops Kade the hard way (SIGKILL of its own process), so "Kade killed
 * while the files are written" is a step the test can hit every time instead of a race. Off unless a
 * test process calls `armFailpoint`; production code only names the points. A unit test stops an in-process
 * Kade instead (test/helpers/stacks-kit.ts): its `stop` cuts that Kade off from everything it could still change.
 */
let armed: string | null = null;
let passes = 0;
let stop: (() => void) | null = null;

/**
 * Arms one point by name (null disarms); only test processes call this. `name@n` stops at the n-th
 * time the point is reached (a point inside a loop: after the second of three file writes).
 */
export function armFailpoint(name: string | null, instead?: () => void): void {
  const counted = name === null ? null : /^(.+)@([1-9]\d*)$/.exec(name);
  armed = counted ? (counted[1] as string) : name;
  passes = counted ? Number(counted[2]) - 1 : 0;
  stop = name === null ? null : (instead ?? null);
}

/**
 * Kills this process at once when `name` is the armed point; a no-op otherwise. Armed with `instead`, that runs in
 * place of the kill (once) and the step is left by a throw: not one more statement of it runs.
 */
export function failpoint(name: string): void {
  if (armed !== name) return;
  if (passes > 0) {
    passes -= 1;
    return;
  }
  if (stop) {
    const instead = stop;
    armFailpoint(null);
    instead();
    throw new Error(`failpoint ${name}: Kade stopped here`);
  }
  process.kill(process.pid, 'SIGKILL');
  // The signal lands within microseconds: block so not one more statement of the step runs meanwhile.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
}
