// The Kade of bench/load.ts, in a process of its own so the event-loop figures are the server's alone.
// Prints `URL <url>` and `BASE <dir>`; on stdin, `reset` starts a new event-loop measurement and
// `stats` prints one JSON line: the largest and 99th-percentile event-loop delay since the last reset
// (ms), the current and peak RSS (MiB) and the engine log streams open.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { startTestServer } from '../test/helpers/server.ts';

const server = await startTestServer();
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
process.stdout.write(`URL ${server.url}\nBASE ${server.baseDir}\n`);

const MIB = 1024 * 1024;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'reset') {
    delay.reset();
    process.stdout.write('OK\n');
  } else if (line === 'stats') {
    const stats = {
      maxDelayMs: delay.max / 1e6,
      p99DelayMs: delay.percentile(99) / 1e6,
      rssMiB: process.memoryUsage().rss / MIB,
      // maxRSS is in KiB.
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      openLogStreams: server.kade.openLogStreams(),
    };
    process.stdout.write(`STATS ${JSON.stringify(stats)}\n`);
  }
});
process.stdin.on('end', () => {
  void server.close().then(() => process.exit(0));
});
