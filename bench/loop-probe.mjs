// Preloaded into the Kade under `npm run bench` only (`node --import ./bench/loop-probe.mjs dist/server/main.js`):
// measures the server's event-loop delay and answers the bench over the IPC channel of its spawn, so Kade
// itself opens no debug route. Messages: 'reset' starts a new measurement; 'stats' answers
// { maxDelayMs, p99DelayMs } since the last reset.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
if (process.send) {
  process.on('message', (msg) => {
    if (msg === 'reset') {
      delay.reset();
      process.send?.({ reset: true });
    } else if (msg === 'stats') {
      process.send?.({ maxDelayMs: delay.max / 1e6, p99DelayMs: delay.percentile(99) / 1e6 });
    }
  });
  // The IPC channel must not keep Kade alive after SIGTERM closed its server.
  process.channel?.unref();
}
