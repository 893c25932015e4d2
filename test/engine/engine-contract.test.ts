import { before } from 'node:test';
import { parseEngineEndpoint } from '../../src/server/config/config.ts';
import { createDockerEngine } from '../../src/server/engine/docker-engine.ts';
import { engineContract } from '../../src/server/engine/engine.contract.ts';
import { requireEngine } from '../helpers/engine.ts';

// The Engine's contract on the Docker adapter and a real daemon, once per endpoint: KADE_TEST_ENGINES lists them as
// DOCKER_HOST does (`unix:///path`, `tcp://host:port`, comma-separated); by default the local socket.
const endpoints = (process.env.KADE_TEST_ENGINES ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').split(',').map((e) => e.trim());
const IMAGE = 'kade-test/busybox:1';

before(() => requireEngine());

for (const endpoint of endpoints) {
  const engine = createDockerEngine(parseEngineEndpoint(endpoint));
  const unreachable = createDockerEngine({ socketPath: '/nonexistent/docker.sock' });
  engineContract(`engine at ${endpoint}`, () => ({ engine, unreachable, image: IMAGE }));
}
