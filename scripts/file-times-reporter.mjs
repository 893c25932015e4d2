// A node:test reporter that writes one line per test file: its wall time and path. With
// --test-concurrency=1 the files run one after another, so a file's time is from the previous
// file's last event to its own last event (start-up, hooks and tests included). A file's line is
// written when the next file starts, so a run cut short still tells where its time went.
import { relative } from 'node:path';

export default async function* fileTimes(source) {
  let current;
  let started = performance.timeOrigin; // the first file counts from the runner's start
  let lastEvent = started;
  const line = (file, end) => `${((end - started) / 1000).toFixed(1)}\t${relative(process.cwd(), file)}\n`;
  for await (const event of source) {
    // A test declared in a helper module (the contract cases) reports that module: it counts for the file running.
    const reported = event.data?.file;
    const file = reported && !/\.test\.[cm]?[jt]sx?$/.test(reported) ? (current ?? reported) : reported;
    // Files are queued (enqueue/dequeue) ahead of their run: only what a running file reports counts.
    if (!file || event.type === 'test:enqueue' || event.type === 'test:dequeue') continue;
    if (file !== current) {
      if (current !== undefined) {
        yield line(current, lastEvent);
        started = lastEvent;
      }
      current = file;
    }
    lastEvent = Date.now();
  }
  if (current !== undefined) yield line(current, lastEvent);
}
