import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOCKER_HUB } from './image-ref.ts';
import type { RegistryCredentials } from './registry-client.ts';

/** The key the docker CLI (and docker-py in compose v1) stores Docker Hub credentials under. */
const HUB_AUTH_KEY = 'https://index.docker.io/v1/';

/** The client config the process would use without us: `$DOCKER_CONFIG` or `~/.docker`. */
const ownConfigDir = (env: NodeJS.ProcessEnv) => env.DOCKER_CONFIG ?? join(homedir(), '.docker');

function readOwnConfig(dir: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A client config holding the configured account next to what the own config already had.
 * `credsStore` is dropped: with it the CLI would ask the store and never read our entry.
 */
export function dockerConfigWith(own: Record<string, unknown>, creds: RegistryCredentials): Record<string, unknown> {
  const key = creds.host === DOCKER_HUB ? HUB_AUTH_KEY : creds.host;
  const { credsStore: _store, ...rest } = own;
  const helpers = { ...((own.credHelpers as Record<string, string> | undefined) ?? {}) };
  delete helpers[key];
  return {
    ...rest,
    credHelpers: helpers,
    auths: { ...((own.auths as Record<string, unknown> | undefined) ?? {}), [key]: { auth: Buffer.from(`${creds.user}:${creds.token}`).toString('base64') } },
  };
}

/**
 * Runs `work` with `DOCKER_CONFIG` pointing at a private temp folder (0700) whose config.json
 * (0600) holds the configured registry account, and removes the folder afterwards. The compose
 * CLI pulls with its own client config, so this is how a job's pull gets the credentials without
 * a `docker login` that would leave them in the host's config. CLI plugins stay reachable by a link.
 */
export async function withRegistryAuth<T>(creds: RegistryCredentials | null, work: (env: Record<string, string>) => Promise<T>): Promise<T> {
  if (!creds) return work({});
  const dir = await mkdtemp(join(tmpdir(), 'kade-docker-config-'));
  try {
    const own = ownConfigDir(process.env);
    await writeFile(join(dir, 'config.json'), JSON.stringify(dockerConfigWith(readOwnConfig(own), creds)), { mode: 0o600 });
    if (existsSync(join(own, 'cli-plugins'))) await symlink(join(own, 'cli-plugins'), join(dir, 'cli-plugins'));
    return await work({ DOCKER_CONFIG: dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
