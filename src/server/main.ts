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

/**
 * The line a person starting Kade reads: where to open it and what comes next there. Whether an account exists is
 * asked of Kade itself (GET /api/auth/status, in process), as the browser will ask it.
 */
async function announce(fetch: (req: Request, env: unknown) => Promise<Response>, bind: string, port: number): Promise<void> {
  const any = bind === '0.0.0.0' || bind === '::';
  const host = any ? '127.0.0.1' : bind.includes(':') ? `[${bind}]` : bind;
  const url = `http://${host}:${port}`;
  let next = 'open it to sign in';
  try {
    // With the Host header a browser sends: before setup, Kade answers only to its own names and addresses.
    const res = await fetch(new Request(`${url}/api/auth/status`, { headers: { host: `${host}:${port}` } }), {});
    if (((await res.json()) as { setup_required?: boolean }).setup_required) next = 'open it to create the admin account';
  } catch {
    // Kade answers its own status; should it not, the address alone still helps.
  }
  process.stdout.write(`Kade is running at ${url}${any ? ' (and every other address of this host)' : ''} — ${next}\n`);
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
    void announce(kade.fetch, config.bind, info.port);
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
