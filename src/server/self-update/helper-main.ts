/**
 * Entry of the update helper container (node dist/server/self-update/helper-main.js): reads its task
 * from KADE_SELF_UPDATE and runs it. Exit 0 when the new version answers, 1 otherwise.
 */
import { createComposeCli } from '../engine/compose-cli.ts';
import { createDockerEngine } from '../engine/docker-engine.ts';
import { runSelfUpdateHelper } from './helper.ts';
import { HELPER_ENV, HelperSpec } from './helper-spec.ts';

const spec = HelperSpec.parse(JSON.parse(process.env[HELPER_ENV] ?? 'null'));
const endpoint = { socketPath: spec.socketPath };
// Compose reads the working directory's .env; the image's own variables (SVC_PORT, SVC_BIND, …) must not win over it.
const env = { PATH: process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/root' };
const state = await runSelfUpdateHelper(spec, {
  compose: createComposeCli(endpoint, 'auto', { env }),
  engine: createDockerEngine(endpoint),
  log: (line) => process.stdout.write(`kade-self-update: ${line}\n`),
});
process.exit(state === 'done' ? 0 : 1);
