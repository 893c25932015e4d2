import type { Logger } from './core/logger.ts';
import type { Kade, KadeOptions } from './kade.ts';

/**
 * Holds the Kade a server answers with and builds it again on request (the path move switches every
 * service to the new folders this way): the old instance finishes its jobs and closes, then a new one
 * is created on the same state; requests meanwhile wait for it. Used by main.ts and the test server.
 */
export function createKadeRunner(make: (opts: Pick<KadeOptions, 'restart'>) => Kade, logger: Logger) {
  let current: Kade;
  let switching: Promise<void> | null = null;

  const build = () => make({ restart: () => void restart() });

  async function restart(): Promise<void> {
    if (switching) return switching;
    switching = (async () => {
      logger.info('restarting Kade in place');
      await current.close();
      try {
        current = build();
      } catch (err) {
        // The first build after a move may meet a folder that went away: a second one falls back to the boot folders.
        logger.error({ err }, 'Kade could not be built again; trying once more');
        current = build();
      }
    })().finally(() => {
      switching = null;
    });
    return switching;
  }

  current = build();
  return {
    fetch: async (req: Request, env: unknown): Promise<Response> => {
      if (switching) await switching;
      return current.app.fetch(req, env);
    },
    current: () => current,
    restart,
    async close(): Promise<void> {
      if (switching) await switching;
      await current.close();
    },
  };
}
