import { startGitServer } from '../../../test/helpers/git-server.ts';
import { gitContract } from './git.contract.ts';
import { createGitCli } from './git-cli.ts';

// The Git contract on the CLI adapter and real git, served by smart HTTP on loopback (file:// is refused by design).
gitContract('git CLI over smart HTTP', () => ({
  git: createGitCli({ timeoutMs: 30_000 }),
  limited: (caps) => createGitCli({ timeoutMs: 30_000, ...caps }),
  server: (opts) => startGitServer(opts ?? {}),
}));
