/**
 * Named points where a fault test stops Kade the hard way (SIGKILL of its own process), so "Kade killed
 * while the files are written" is a step the test can hit every time instead of a race. Off unless a
 * test process calls `armFailpoint`; production code only names the points.
 */
let armed: string | null = null;

/** Arms one point by name (null disarms); only test processes call this. */
export function armFailpoint(name: string | null): void {
  armed = name;
}

/** Kills this process at once when `name` is the armed point; a no-op otherwise. */
export function failpoint(name: string): void {
  if (armed !== name) return;
  process.kill(process.pid, 'SIGKILL');
  // The signal lands within microseconds: block so not one more statement of the step runs meanwhile.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
}
