// A process that runs one child through core/exec.ts `run()` the way Kade does (registry in the given
// folder), for src/server/core/exec.int.test.ts: the child is `sh`, which starts a `sleep` of its own and
// prints "<sh pid> <sleep pid>"; the test then kills this process the hard way.
import { setChildRegistry } from '../../src/server/core/children.ts';
import { run } from '../../src/server/core/exec.ts';

setChildRegistry(process.argv[2] ?? '');
await run('sh', ['-c', 'sleep 300 & echo "$$ $!"; wait'], { timeoutMs: 600_000, onOutput: (t) => process.stdout.write(t) });
