// Entry of a Kade child process for the fault tests (kade-child.ts): a real Kade on the given folders,
// optionally with one failpoint armed, printing its URL and running until it is killed.
import { armFailpoint } from '../../src/server/core/failpoint.ts';
import { startTestServer } from './server.ts';

armFailpoint(process.env.KADE_CHILD_FAILPOINT || null);
const env: Record<string, string> = process.env.KADE_CHILD_ENV ? (JSON.parse(process.env.KADE_CHILD_ENV) as Record<string, string>) : {};
const server = await startTestServer({ stateDir: process.env.KADE_CHILD_STATE ?? '', baseDir: process.env.KADE_CHILD_BASE ?? '', env });
process.stdout.write(`URL ${server.url}\n`);
setInterval(() => undefined, 60_000);
