import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { loadConfig } from '../../src/server/config/config.ts';
import { createLogger } from '../../src/server/core/logger.ts';
import { createKade, type Kade, type KadeOptions } from '../../src/server/kade.ts';
import { createKadeRunner } from '../../src/server/runner.ts';
import { TEST_LABEL, TEST_LABEL_VALUE } from './engine.ts';

export interface TestServer {
  url: string;
  baseDir: string;
  stateDir: string;
  kade: Kade;
  close(): Promise<void>;
}

/**
 * Starts a real Kade on 127.0.0.1 with a random port and fresh folders. Pass `stateDir` to
 * restart on the same state (the folders are then left for the caller to remove).
 */
export async function startTestServer(
  opts: {
    env?: Record<string, string>;
    stateDir?: string;
    baseDir?: string;
    kade?: Omit<KadeOptions, 'peerAddress'>;
    /** Where Kade's own log goes (a test reads it); with SVC_LOG_LEVEL in `env` for its level. */
    logTo?: NodeJS.WritableStream;
  } = {},
): Promise<TestServer> {
  const root = mkdtempSync(join(tmpdir(), 'kade-test-'));
  const baseDir = opts.baseDir ?? join(root, 'base');
  const stateDir = opts.stateDir ?? join(root, 'state');
  const config = loadConfig(
    {
      SVC_LOG_LEVEL: process.env.KADE_TEST_LOG ?? 'silent',
      SVC_PROBE_IMAGE: 'kade-test/busybox:1',
      // Lanes of one run share the engine: each cuts its apps' networks from a block of its own.
      ...(process.env.KADE_TEST_LANE ? { SVC_APP_SUBNET_POOL: `10.${199 + Number(process.env.KADE_TEST_LANE)}.0.0/16` } : {}),
      ...opts.env,
      BASE_DIR: baseDir,
      SVC_DATA: stateDir,
      SVC_PORT: '1',
    },
    process.cwd(),
  );
  const logger = createLogger(config.logLevel, opts.logTo);
  // Built like main.ts builds it, so a path move's restart in place works here too.
  const runner = createKadeRunner(
    (more) =>
      createKade(config, logger, {
        // Shared networks a test makes Kade create are removed by cleanupLabelled.
        networkLabels: { [TEST_LABEL]: TEST_LABEL_VALUE },
        ...opts.kade,
        ...more,
        peerAddress: (_req, env) => (env as { incoming?: { socket?: { remoteAddress?: string } } }).incoming?.socket?.remoteAddress,
      }),
    logger,
  );
  const server = serve({ fetch: runner.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    baseDir,
    stateDir,
    get kade() {
      return runner.current();
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runner.close();
      // Retried: a container the test left may still be writing below BASE_DIR (ENOTEMPTY).
      if (!opts.stateDir && !opts.baseDir) rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}
