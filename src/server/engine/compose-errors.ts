/** How a compose run's failures read, the same for the CLI adapter (compose-cli.ts) and its fake (fake-compose.ts). */
import type { EngineEndpoint } from '../config/config.ts';
import { AppError } from '../core/errors.ts';

/** The DOCKER_HOST that names an endpoint. */
export const dockerHostOf = (e: EngineEndpoint): string => ('socketPath' in e ? `unix://${e.socketPath}` : `tcp://${e.host}:${e.port}`);

/** A compose run that failed while the engine could not be reached: what to do, then compose's own words. */
export function engineGone(stack: string, command: string, e: EngineEndpoint, words: string): AppError {
  return new AppError(
    'engine_unreachable',
    `the container engine at ${dockerHostOf(e)} could not be reached during compose ${command} of '${stack}': ` +
      `start the engine (or fix DOCKER_HOST) and try again. Compose said: ${words.replace(/\s+/g, ' ').trim()}`,
    { params: { stack } },
  );
}

/** The engine's words when it has no address block left for a new network (its default pools hold about 30). */
export const POOL_EXHAUSTED = /could not find an available, non-overlapping IPv4 address pool|all predefined address pools have been fully subnetted/i;

export function poolExhausted(stack: string, words: string): AppError {
  return new AppError(
    'network_pool_exhausted',
    `the container engine has no free address block left for the network of '${stack}': every block of its address pools is taken by another network. ` +
      'Remove networks that are no longer used (docker network prune), or give the engine larger pools (default-address-pools in /etc/docker/daemon.json), ' +
      `or widen Kade's own pool SVC_APP_SUBNET_POOL. The engine said: ${words}`,
    { params: { stack } },
  );
}

/** Neither CLI is installed: every run fails so. */
export const noComposeCli = (): AppError => new AppError('engine_unreachable', 'neither `docker compose` nor `docker-compose` is installed');

/**
 * The engine's words when a port the app publishes is held by something else on the host (docker's userland proxy,
 * its iptables driver, older and newer wordings): the address and the port.
 */
const PORT_HELD = /(?:listen tcp[46]? |Bind for |bind host port for |bind port )(\[[0-9a-f:]+\]|[0-9.]+):(\d{1,5})/i;
const HELD_WORDS = /address already in use|port is already allocated/i;

/** A published port something else holds: Kade's own sentence once, instead of compose's (which repeats it per service). */
export function portHeld(stack: string, command: string, words: string): AppError | null {
  const m = HELD_WORDS.test(words) ? PORT_HELD.exec(words) : null;
  if (!m?.[2]) return null;
  const port = Number(m[2]);
  return new AppError(
    'compose_failed',
    `port ${port} is already in use on this host (${m[1]}), so compose ${command} could not start '${stack}': give the app another port in Configure, then try again`,
    { params: { stack, reason: 'port_in_use', port, address: m[1] ?? '' } },
  );
}

/** Any other failed run: compose's last words. */
export const composeFailed = (stack: string, command: string, words: string): AppError =>
  portHeld(stack, command, words) ?? new AppError('compose_failed', `compose ${command} of '${stack}' failed: ${words}`, { params: { stack } });

/** A file `config` refused: what `validate` throws, with compose's words. */
export const composeInvalid = (stack: string, words: string, cause?: unknown): AppError =>
  new AppError('compose_invalid', `the compose file is not valid: ${words}`, { params: { stack }, cause });
