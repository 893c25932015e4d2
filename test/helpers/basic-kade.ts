import { ApiClient } from './client.ts';
import { type GitServer, startGitServer } from './git-server.ts';
import { startTestServer, type TestServer } from './server.ts';

export interface BasicKade {
  git: GitServer;
  server: TestServer;
  /** Logged in as the admin. */
  api: ApiClient;
  close(): Promise<void>;
}

/** A Kade whose admin finished the wizard, with the basic fixture repo added and fetched: where many browser tests start. */
export async function startBasicKade(password: string): Promise<BasicKade> {
  const git = await startGitServer();
  await git.addRepo('basic', 'test/fixtures/repos/basic', { branch: 'main' });
  const server = await startTestServer();
  const api = new ApiClient(server.url);
  await api.loginAs('admin', password);
  await api.post('/api/wizard/complete');
  await api.addSyncedRepo('Basic', git.url('basic'));
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
