import { accessSync, chmodSync, constants, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { type ProxyConfig, readProxyConfig } from './proxy-env.ts';
import { detectTimezone } from './timezone.ts';

export type { ProxyConfig };

const port = z.coerce.number().int().min(1).max(65535);
/** The small image whose `tail` reads the host's socket tables for the port check; Kade pulls it when missing. */
export const DEFAULT_PROBE_IMAGE = 'busybox:1.37';
/** Kade's own pool for the apps' project networks, cut into /26 blocks (networks/subnet-pool.ts). */
export const DEFAULT_APP_SUBNET_POOL = '10.200.0.0/16';

const EnvSchema = z.object({
  BASE_DIR: z.string().min(1).optional(),
  SVC_DATA: z.string().min(1).optional(),
  SVC_JOBS: z.string().min(1).optional(),
  SVC_PORT: port.default(8420),
  SVC_BIND: z.string().min(1).default('127.0.0.1'),
  SVC_UID: z.coerce.number().int().min(0).optional(),
  SVC_GID: z.coerce.number().int().min(0).optional(),
  DOCKER_HOST: z.string().min(1).optional(),
  SVC_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SVC_COMPOSE: z.enum(['auto', 'v2', 'v1']).default('auto'),
  TZ: z.string().optional(),
  AUTO_SYNC_ON_BOOT: z.enum(['0', '1', 'true', 'false']).optional(),
  SVC_PROBE_IMAGE: z.string().min(1).default(DEFAULT_PROBE_IMAGE),
  SVC_PROBE_PULL: z.enum(['0', '1', 'true', 'false']).optional(),
  SVC_UPDATE_HEALTH_SECONDS: z.coerce.number().int().min(5).max(3600).default(120),
  SVC_AUTH_PROXY_TRUSTED: z.string().optional(),
  SVC_AUTH_PROXY_HEADER: z.string().optional(),
  SVC_AUTH_PROXY_ROLE: z.string().optional(),
  SVC_ALLOWED_HOSTS: z.string().optional(),
  SVC_APP_SUBNET_POOL: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,3}){3}\/([89]|1\d|2[0-6])$/, 'a CIDR block from /8 to /26, e.g. 10.200.0.0/16')
    .default(DEFAULT_APP_SUBNET_POOL),
});

/** Where the engine lives: a unix socket or a tcp host. Never a global; handed to the adapter. */
export type EngineEndpoint = { socketPath: string } | { host: string; port: number };

export interface Config {
  readonly version: string;
  readonly rootDir: string;
  readonly baseDir: string;
  readonly libraryDir: string;
  readonly dataDir: string;
  readonly backupDir: string;
  readonly stateDir: string;
  readonly jobsDir: string;
  readonly port: number;
  readonly bind: string;
  readonly uid: number;
  readonly gid: number;
  readonly engine: EngineEndpoint;
  readonly logLevel: string;
  readonly compose: 'auto' | 'v2' | 'v1';
  readonly webDir: string;
  readonly timezone: string;
  readonly autoSyncOnBoot: boolean;
  readonly probeImage: string;
  /** Whether Kade pulls SVC_PROBE_IMAGE when the engine lacks it (SVC_PROBE_PULL, on unless `0` or `false`). */
  readonly probePull: boolean;
  /** The trusted reverse proxy and single sign-on through it, from the SVC_AUTH_PROXY_* variables. */
  readonly proxy: ProxyConfig;
  /** Host names (besides this machine's own addresses) accepted while setup is not done. */
  readonly allowedHosts: readonly string[];
  /** SVC_APP_SUBNET_POOL: the block Kade cuts the apps' project networks from. */
  readonly appSubnetPool: string;
  /** SVC_UPDATE_HEALTH_SECONDS: how long a self-updated Kade may take to answer /healthz before the helper rolls back. */
  readonly updateHealthSeconds: number;
}

export function parseEngineEndpoint(dockerHost: string | undefined): EngineEndpoint {
  if (!dockerHost) return { socketPath: '/var/run/docker.sock' };
  if (dockerHost.startsWith('unix://')) return { socketPath: dockerHost.slice('unix://'.length) };
  const m = /^tcp:\/\/([^:/]+):(\d{1,5})\/?$/.exec(dockerHost);
  if (m?.[1] && m[2]) return { host: m[1], port: Number(m[2]) };
  throw new AppError('validation', `DOCKER_HOST '${dockerHost}' is neither unix:///path nor tcp://host:port`, {
    params: { name: 'DOCKER_HOST' },
  });
}

/** Reads the environment once. Only this module reads process.env. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, rootDir = process.cwd()): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? 'environment');
    throw new AppError('validation', `environment variable ${key} is invalid: ${issue?.message ?? ''}`, {
      params: { name: key },
    });
  }
  const e = parsed.data;
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(rootDir, p));
  const baseDir = abs(e.BASE_DIR ?? join('.kade', 'base'));
  const stateDir = abs(e.SVC_DATA ?? join('.kade', 'data'));
  return Object.freeze({
    version: readFileSync(join(rootDir, 'VERSION'), 'utf8').trim(),
    rootDir,
    baseDir,
    libraryDir: join(baseDir, 'stacks'),
    dataDir: join(baseDir, 'appdata'),
    backupDir: join(baseDir, 'backups'),
    stateDir,
    jobsDir: abs(e.SVC_JOBS ?? join(stateDir, 'jobs')),
    port: e.SVC_PORT,
    bind: e.SVC_BIND,
    uid: e.SVC_UID ?? process.getuid?.() ?? 0,
    gid: e.SVC_GID ?? process.getgid?.() ?? 0,
    engine: parseEngineEndpoint(e.DOCKER_HOST),
    logLevel: e.SVC_LOG_LEVEL,
    compose: e.SVC_COMPOSE,
    webDir: join(rootDir, 'dist', 'web'),
    timezone: detectTimezone(e.TZ),
    autoSyncOnBoot: e.AUTO_SYNC_ON_BOOT === '1' || e.AUTO_SYNC_ON_BOOT === 'true',
    probeImage: e.SVC_PROBE_IMAGE,
    probePull: e.SVC_PROBE_PULL !== '0' && e.SVC_PROBE_PULL !== 'false',
    proxy: readProxyConfig(e),
    allowedHosts: readAllowedHosts(e.SVC_ALLOWED_HOSTS),
    appSubnetPool: e.SVC_APP_SUBNET_POOL,
    updateHealthSeconds: e.SVC_UPDATE_HEALTH_SECONDS,
  });
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?)*$/;

/** SVC_ALLOWED_HOSTS: comma-separated host names (no port); a bad entry stops the start. */
function readAllowedHosts(raw: string | undefined): string[] {
  const names = (raw ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const bad = names.find((h) => !HOST_NAME.test(h) && !/^[\d.]+$|^\[?[\da-f:]+\]?$/.test(h));
  if (bad !== undefined) {
    throw new AppError(
      'validation',
      `environment variable SVC_ALLOWED_HOSTS is invalid: '${bad}' is not a host name (give names without port, comma-separated)`,
      {
        params: { name: 'SVC_ALLOWED_HOSTS' },
      },
    );
  }
  return names.map((h) => h.replace(/^\[|\]$/g, ''));
}

/**
 * Creates the directories Kade writes to and proves they are writable, naming the one that is not: BASE_DIR and
 * Kade's own state at start (`config`), the app, data and backup folders once the stored settings chose them
 * (`folders`), so a folder a path move left behind is not made again.
 */
export function ensureDirs(dirs: [string, string][]): void {
  for (const [name, dir] of dirs) {
    // Kernel file systems never hold Kade's data (and a recursive mkdir below /proc can spin forever).
    if (/^\/(proc|sys|dev)(\/|$)/.test(dir)) {
      throw new AppError('validation', `${name} (${dir}) lies in a system folder; set ${name} to a writable directory`, { params: { name, path: dir } });
    }
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK | constants.R_OK | constants.X_OK);
    } catch (cause) {
      throw new AppError('validation', `${name} (${dir}) cannot be created or is not writable; set ${name} to a writable directory`, {
        params: { name, path: dir },
        cause,
      });
    }
  }
}

/** BASE_DIR and Kade's own state (SVC_DATA, SVC_JOBS), private to Kade; the derived folders follow with `ensureDirs`. */
export function prepareDirs(config: Config): void {
  ensureDirs([
    ['BASE_DIR', config.baseDir],
    ['SVC_DATA', config.stateDir],
    ['SVC_JOBS', config.jobsDir],
  ]);
  // Kade's own state (database, key file, git caches, job logs) is for Kade's user only.
  for (const [name, dir] of [['SVC_DATA', config.stateDir] as const, ['SVC_JOBS', config.jobsDir] as const]) {
    try {
      chmodSync(dir, 0o700);
    } catch (cause) {
      throw new AppError('validation', `${name} (${dir}) must be private to Kade (mode 0700) but its mode cannot be changed; make Kade's user its owner`, {
        params: { name, path: dir },
        cause,
      });
    }
  }
}
