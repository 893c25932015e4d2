import { ApiClient } from './client.ts';
import { type GitServer, startGitServer } from './git-server.ts';
import { startTestServer, type TestServer } from './server.ts';

export interface KadeWithGit {
  git: GitServer;
  server: TestServer;
  /** Logged in as the admin. */
  api: ApiClient;
  close(): Promise<void>;
}

/**
 * A Kade whose admin is logged in, beside a git server holding the fixture repos named (name → folder, branch
 * main): where the tests of template repos over the API start.
 */
export async function startKadeWithGit(
  repos: Record<string, string>,
  opts: { password?: string; server?: Parameters<typeof startTestServer>[0] } = {},
): Promise<KadeWithGit> {
  const git = await startGitServer();
  for (const [name, folder] of Object.entries(repos)) await git.addRepo(name, folder, { branch: 'main' });
  const server = await startTestServer(opts.server);
  const api = new ApiClient(server.url);
  await api.loginAs('admin', opts.password);
  return {
    git,
    server,
    api,
    async close() {
      await server.close();
      await git.close();
    },
  };
}

export type BasicKade = KadeWithGit;

/** A Kade whose admin finished the wizard, with the basic fixture repo added and fetched: where many browser tests start. */
export async function startBasicKade(password: string): Promise<BasicKade> {
  const kade = await startKadeWithGit({ basic: 'test/fixtures/repos/basic' }, { password });
  await kade.api.post('/api/wizard/complete');
  await kade.api.addSyncedRepo('Basic', kade.git.url('basic'));
  return kade;
}
