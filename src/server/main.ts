import { serve } from '@hono/node-server';
import { loadConfig } from './config/config.ts';
import { AppError } from './core/errors.ts';
import { createLogger } from './core/logger.ts';
import { createKade } from './kade.ts';
import { createKadeRunner } from './runner.ts';

function fail(err: unknown): never {
  const msg = err instanceof AppError ? err.message : err instanceof Error ? err.message : String(err);
  process.stderr.write(`kade: cannot start: ${msg}\n`);
  process.exit(1);
}

try {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const kade = createKadeRunner(
    (more) =>
      createKade(config, logger, {
        peerAddress: (_req, env) => (env as { incoming?: { socket?: { remoteAddress?: string } } }).incoming?.socket?.remoteAddress,
        ...more,
      }),
    logger,
  );
  const server = serve({ fetch: kade.fetch, port: config.port, hostname: config.bind }, (info) => {
    logger.info({ address: info.address, port: info.port, version: config.version, base_dir: config.baseDir }, 'kade listening');
  });
  server.on('error', (err) => fail(err));
  const stop = () => {
    server.close();
    void kade.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} catch (err) {
  fail(err);
}
