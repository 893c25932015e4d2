import { after, before } from 'node:test';
import { ApiClient } from './client.ts';
import { cleanupLabelled, requireEngine } from './engine.ts';
import { type GitServer, startGitServer } from './git-server.ts';
import { startTestServer, type TestServer } from './server.ts';

/** What an engine test file talks to; each part exists once the file's `before` hook has run. */
export interface EngineSuite {
  readonly git: GitServer;
  readonly kade: TestServer;
  readonly api: ApiClient;
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is used before the engine suite started`);
  return value;
}

/**
 * Registers the file's hooks: a real Kade against the real engine, the `basic` fixture repo served
 * over git, and an admin logged in. Test resources are removed before and after, also after a failed start.
 */
export function useEngineSuite(opts: { env?: Record<string, string>; logTo?: NodeJS.WritableStream } = {}): EngineSuite {
  let git: GitServer | undefined;
  let kade: TestServer | undefined;
  let api: ApiClient | undefined;
  before(async () => {
    await requireEngine();
    await cleanupLabelled();
    git = await startGitServer();
    await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
    kade = await startTestServer(opts);
    api = new ApiClient(kade.url);
    await api.loginAs();
  });
  after(async () => {
    // Containers first: a database still running writes into the app's folder while close() removes it. What this
    // first pass cannot remove, the last one reports.
    await cleanupLabelled().catch(() => undefined);
    // Each step runs whatever the one before did (an open git server alone keeps the file's process alive); the
    // first failure is reported.
    let failed: unknown = null;
    for (const step of [() => kade?.close(), () => git?.close(), cleanupLabelled]) {
      try {
        await step();
      } catch (err) {
        failed ??= err;
      }
    }
    if (failed) throw failed;
  });
  return {
    get git() {
      return started(git, 'git');
    },
    get kade() {
      return started(kade, 'kade');
    },
    get api() {
      return started(api, 'api');
    },
  };
}
