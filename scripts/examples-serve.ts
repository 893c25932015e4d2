// `npm run examples:serve`: this checkout's example apps (examples/, apps under examples/apps) as a git
// repository over HTTP on 127.0.0.1, for a Kade started from the same checkout (`npm start`), which refuses
// local paths and file:// on purpose. Serves a snapshot taken at start; runs until Ctrl+C.
import { resolve } from 'node:path';
import { startGitServer } from '../test/helpers/git-server.ts';

const DEFAULT_PORT = 8421;
const REPO = 'kade-examples';

/** EXAMPLES_PORT or `--port N`; 0 picks a free one. */
function portOf(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const i = argv.indexOf('--port');
  const raw = i >= 0 ? argv[i + 1] : env.EXAMPLES_PORT;
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`'${raw}' is no port number: use a number from 1 to 65535 (EXAMPLES_PORT or --port)`);
  return port;
}

async function main(): Promise<void> {
  const port = portOf(process.argv.slice(2), process.env);
  const examples = resolve(import.meta.dirname, '..', 'examples');
  const server = await startGitServer({ port }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE')
      throw new Error(`port ${port} on 127.0.0.1 is taken (is examples:serve running already?): start with EXAMPLES_PORT=<another port>`);
    throw err;
  });
  await server.addRepo(REPO, examples, { branch: 'main' });
  const url = server.url(REPO);
  process.stdout.write(
    [
      `Kade's example apps are served as a git repository at ${url}`,
      '',
      'Add it in Kade (the setup wizard, or Repositories → Add repository):',
      `  Repository address    ${url}`,
      '  Branch                main',
      '  Folder with the apps  apps',
      '',
      'Only a Kade on this machine reaches it (127.0.0.1); changes under examples/ are served after a restart of this command.',
      'Stop with Ctrl+C.',
      '',
    ].join('\n'),
  );
  const stop = () => {
    void server.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`examples:serve: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
