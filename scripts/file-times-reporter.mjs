// A node:test reporter that writes one line per test file: its wall time and path. With
// --test-concurrency=1 the files run one after another, so a file's time is from the previous
// file's last event to its own last event (start-up, hooks and tests included).
import { relative } from 'node:path';

export default async function* fileTimes(source) {
  const last = new Map();
  const order = [];
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    if (!last.has(file)) order.push(file);
    last.set(file, Date.now());
  }
  let previous = performance.timeOrigin; // the first file counts from the runner's start
  for (const file of order) {
    const end = last.get(file);
    yield `${((end - previous) / 1000).toFixed(1)}\t${relative(process.cwd(), file)}\n`;
    previous = end;
  }
}
