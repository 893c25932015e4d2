import { after, before } from 'node:test';
import { parseEngineEndpoint } from '../../src/server/config/config.ts';
import { composeContract } from '../../src/server/engine/compose.contract.ts';
import { createComposeCli } from '../../src/server/engine/compose-cli.ts';
import { createDockerEngine } from '../../src/server/engine/docker-engine.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';

// The Compose contract on the CLI adapter and a real daemon, once per endpoint: KADE_TEST_ENGINES lists them as
// DOCKER_HOST does (`unix:///path`, `tcp://host:port`, comma-separated); by default the local socket.
const endpoints = (process.env.KADE_TEST_ENGINES ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').split(',').map((e) => e.trim());
const IMAGE = 'kade-test/busybox:1';
const far = { socketPath: '/nonexistent/docker.sock' };

before(async () => {
  await requireEngine();
  await cleanupLabelled();
});
after(() => cleanupLabelled());

for (const where of endpoints) {
  const endpoint = parseEngineEndpoint(where);
  const target = {
    compose: createComposeCli(endpoint),
    endpoint,
    engine: createDockerEngine(endpoint),
    image: IMAGE,
    unreachable: { compose: createComposeCli(far), endpoint: far },
  };
  composeContract(`compose at ${where}`, () => target);
}
