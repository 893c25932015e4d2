import { serve } from '@hono/node-server';
import { loadConfig } from './config/config.ts';
import { AppError } from './core/errors.ts';
import { createLogger } from './core/logger.ts';
import { createKade } from './kade.ts';

function fail(err: unknown): never {
  const msg = err instanceof AppError ? err.message : err instanceof Error ? err.message : String(err);
  process.stderr.write(`kade: cannot start: ${msg}\n`);
  process.exit(1);
}

let kade: ReturnType<typeof createKade>;
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
  const logger = createLogger(config.logLevel);
  kade = createKade(config, logger, {
    peerAddress: (_req, env) => (env as { incoming?: { socket?: { remoteAddress?: string } } }).incoming?.socket?.remoteAddress,
  });
  const server = serve({ fetch: kade.app.fetch, port: config.port, hostname: config.bind }, (info) => {
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
