// install.sh for real, under dash and busybox sh, against the local engine: a fresh install from a
// local git server, an update and a failing update with its rollback, --reconfigure, --uninstall
// with and without --purge, an install from the archive when git is missing, and --token.
// Installs pull Kade's image (built once from this work tree by kadeImage()) from a local registry
// through SVC_IMAGE; build.test.ts covers the one real build.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { type GitServer, startGitServer } from '../helpers/git-server.ts';
import { kadeImage } from '../helpers/kade-image.ts';
import type { Registry } from '../helpers/registry.ts';
import { freePort, pathWithout, removeAll, runInstaller, SHELLS, tempDir } from './installer.ts';
import { archiveOf, envValue, headTree, pushedImage, run, serveArchive, tokenFiles, variant } from './source.ts';

const TOKEN = 'kade-install-token-7f3a';

async function healthz(port: number, host = '127.0.0.1'): Promise<{ version?: string } | undefined> {
  try {
    const res = await fetch(`http://${host}:${port}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? ((await res.json()) as { version?: string }) : undefined;
  } catch {
    return undefined;
  }
}

async function containersOf(project: string): Promise<string[]> {
  const out = await run('docker', ['ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`]);
  return out === '' ? [] : out.split('\n');
}

async function volumesOf(project: string): Promise<string[]> {
  const out = await run('docker', ['volume', 'ls', '-q', '--filter', `label=com.docker.compose.project=${project}`]);
  return out === '' ? [] : out.split('\n');
}

async function headOf(dir: string): Promise<string> {
  return run('git', ['-C', dir, 'rev-parse', 'HEAD']);
}

/** compose down -v for an installation a failed test left behind, then its folders. */
async function tearDown(dir: string, ...more: string[]): Promise<void> {
  if (existsSync(join(dir, 'compose.yaml'))) {
    await run('sh', ['-c', 'cd "$1" && (docker compose version >/dev/null 2>&1 && docker compose down -v || docker-compose down -v)', 'sh', dir]).catch(
      () => undefined,
    );
  }
  await removeAll(dir, ...more);
}

let registry: Registry | undefined;
let image = '';
let tag = '';
let tree = '';
let archive: Buffer | undefined;
let git: GitServer | undefined;
let tokenGit: GitServer | undefined;
let tmp = '';
let noGit = '';
/** What the token server saw of the installer's private files while it answered. */
const seenFiles: ReturnType<typeof tokenFiles>[] = [];
let authorizedRequests = 0;

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  ({ registry, image, tag } = await pushedImage(await kadeImage()));
  tree = await headTree();
  archive = await archiveOf(tree, 'kade-main');
  tmp = await tempDir('tmp');
  noGit = await pathWithout(['git']);
  git = await startGitServer();
  const answerArchive = serveArchive('kade', 'main', () => archive);
  tokenGit = await startGitServer({
    token: TOKEN,
    intercept: (req, res, authorized) => {
      if (authorized) authorizedRequests++;
      seenFiles.push(tokenFiles(tmp));
      return answerArchive(req, res, authorized);
    },
  });
  await tokenGit.addRepo('kade', tree);
});

after(async () => {
  await git?.close();
  await tokenGit?.close();
  await registry?.close();
  await cleanupLabelled();
  await removeAll(tree, tmp, noGit);
});

for (const shell of SHELLS) {
  const slug = shell.name.replace(/\W+/g, '');
  describe(`install.sh under ${shell.name} against the engine`, () => {
    const project = `kadetest-install-${slug}`;
    // Each shell's own upstream: the commits one suite pushes (a broken one among them) stay its own.
    const repo = `kade-${slug}`;
    let dir = '';
    let base = '';
    let port = 0;
    let updated = '';
    const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
      ...process.env,
      TMPDIR: tmp,
      SVC_SOURCE_URL: git?.url(repo),
      SVC_IMAGE: image,
      SVC_TAG: tag,
      COMPOSE_PROJECT_NAME: project,
      SVC_WACHT_POGINGEN: '60',
      ...extra,
    });

    before(async () => {
      await git?.addRepo(repo, tree);
      const root = await tempDir(slug);
      dir = join(root, 'kade');
      base = join(root, 'base');
      port = await freePort();
    });
    after(() => tearDown(dir, join(dir, '..')));

    test('installs from git: /healthz answers on --bind/--port, .env is 0600 with the values, the address and the account warning are printed', async () => {
      // A host in Amsterdam: its /etc as the installer reads it for the zone.
      const hostEtc = join(dir, '..', 'host-etc');
      await mkdir(hostEtc, { recursive: true });
      await writeFile(join(hostEtc, 'timezone'), 'Europe/Amsterdam\n');
      await copyFile('/usr/share/zoneinfo/Europe/Amsterdam', join(hostEtc, 'localtime'));
      const r = await runInstaller(shell, ['--yes', '--user', 'root', '--dir', dir, '--base-dir', base, '--bind', '127.0.0.1', '--port', String(port)], {
        env: env({ SVC_HOST_ETC: hostEtc }),
      });
      assert.equal(r.code, 0, r.output);
      assert.match(r.stdout, new RegExp(`Waiting for http://127\\.0\\.0\\.1:${port}/healthz \\.+ ok`));
      assert.match(r.stdout, new RegExp(`Kade runs at http://127\\.0\\.0\\.1:${port}/`));
      assert.match(r.stdout, /create the admin account at once/);
      const health = await healthz(port);
      assert.ok(health, 'healthz answers');
      assert.equal(health.version, (await readFile(join(tree, 'VERSION'), 'utf8')).trim());
      assert.equal((await stat(join(dir, '.env'))).mode & 0o777, 0o600);
      const envFile = join(dir, '.env');
      assert.equal(await envValue(envFile, 'SVC_PORT'), String(port));
      assert.equal(await envValue(envFile, 'SVC_BIND'), '127.0.0.1');
      assert.equal(await envValue(envFile, 'SVC_UID'), '0');
      assert.equal(await envValue(envFile, 'SVC_GID'), '0');
      assert.equal(await envValue(envFile, 'BASE_DIR'), base);
      assert.equal(await envValue(envFile, 'COMPOSE_PROJECT_NAME'), project);
      assert.equal(await envValue(envFile, 'TZ'), 'Europe/Amsterdam');
      assert.ok(existsSync(base), 'the base directory exists');
      const [id] = await containersOf(project);
      assert.equal((await containersOf(project)).length, 1);
      // Kade's clock in its container is the host's: noon UTC on 1 July is 14:00 there, for node and for the C library.
      const clock = await run('docker', [
        'exec',
        id ?? '',
        'sh',
        '-c',
        `node -e 'process.stdout.write(process.env.TZ + " " + new Date(Date.UTC(2026, 6, 1, 12)).getHours())' && date -d @1782907200 +' %H'`,
      ]);
      assert.equal(clock, 'Europe/Amsterdam 14 14');
    });

    test('--update (with --host: the remote switched first) moves to the new upstream commit and restarts Kade', async () => {
      const was = await containersOf(project);
      const next = await variant(tree, async (d) => {
        await rm(join(d, 'README.md'), { force: true });
      });
      try {
        updated = (await git?.commit(repo, next, `update under ${shell.name}`)) ?? '';
      } finally {
        await removeAll(next);
      }
      // --host on an existing installation: the remote moves to the other name of the same server first.
      const other = new URL(git?.url(repo) ?? '');
      other.hostname = 'localhost';
      const r = await runInstaller(shell, ['--update', '--dir', dir, '--host', other.host], {
        env: env({ SVC_IMAGE: '', SVC_TAG: '', COMPOSE_PROJECT_NAME: '' }),
      });
      assert.equal(r.code, 0, r.output);
      assert.equal(await run('git', ['-C', dir, 'remote', 'get-url', 'origin']), other.href);
      assert.match(r.stdout, /Kade is updated and runs at/);
      assert.equal(await headOf(dir), updated);
      assert.equal(existsSync(join(dir, 'README.md')), false);
      const now = await containersOf(project);
      assert.equal(now.length, 1);
      assert.notDeepEqual(now, was, 'the container was recreated');
      assert.ok(await healthz(port), 'healthz answers after the update');
      assert.equal((await stat(join(dir, '.env'))).mode & 0o777, 0o600);
    });

    test('a failing update exits non-zero with an error, goes back to the previous commit and runs it again', async () => {
      const broken = await variant(tree, async (d) => {
        const compose = await readFile(join(d, 'compose.yaml'), 'utf8');
        await writeFile(join(d, 'compose.yaml'), `${compose}\nthis is: [not yaml\n`);
      });
      try {
        await git?.commit(repo, broken, 'a commit that breaks the start');
      } finally {
        await removeAll(broken);
      }
      const r = await runInstaller(shell, ['--update', '--dir', dir], { env: env({ SVC_IMAGE: '', SVC_TAG: '', COMPOSE_PROJECT_NAME: '' }) });
      assert.notEqual(r.code, 0, r.output);
      assert.match(r.stderr, /error: the update could not be built or pulled/);
      assert.match(r.stderr, /rolled back to the previous version and runs again/);
      assert.doesNotMatch(r.stdout, /Kade is updated/);
      assert.equal(await headOf(dir), updated);
      assert.ok(await healthz(port), 'healthz answers after the rollback');
    });

    test('--reconfigure --port, then --bind ::1: Kade answers on the new port, then on [::1] (the health check follows), .env says so', async () => {
      const newPort = await freePort();
      const r = await runInstaller(shell, ['--reconfigure', '--dir', dir, '--port', String(newPort)], { env: env({ SVC_IMAGE: '', SVC_TAG: '' }) });
      assert.equal(r.code, 0, r.output);
      assert.ok(await healthz(newPort), 'healthz answers on the new port');
      assert.equal(await healthz(port), undefined, 'the old port is closed');
      assert.equal(await envValue(join(dir, '.env'), 'SVC_PORT'), String(newPort));
      assert.equal(await envValue(join(dir, '.env'), 'BASE_DIR'), base);
      assert.equal(await headOf(dir), updated, 'the source is untouched');
      assert.equal((await stat(join(dir, '.env'))).mode & 0o777, 0o600);
      port = newPort;

      const v6 = await runInstaller(shell, ['--reconfigure', '--dir', dir, '--bind', '::1'], { env: env() });
      assert.equal(v6.code, 0, v6.output);
      assert.match(v6.stdout, new RegExp(`Waiting for http://\\[::1\\]:${port}/healthz \\.+ ok`));
      assert.match(v6.stdout, new RegExp(`runs at http://\\[::1\\]:${port}/`));
      assert.equal(await envValue(join(dir, '.env'), 'SVC_BIND'), '[::1]');
      assert.ok(await healthz(port, '[::1]'), 'healthz answers on [::1]');
      assert.equal(await healthz(port), undefined, '127.0.0.1 no longer answers');
    });

    test('a --reconfigure whose port is taken exits non-zero, puts the previous .env back and runs Kade as before', async () => {
      const envBefore = await readFile(join(dir, '.env'), 'utf8');
      const taken = createServer();
      await new Promise<void>((resolveListen) => taken.listen(0, '127.0.0.1', resolveListen));
      const address = taken.address();
      const takenPort = typeof address === 'object' && address ? address.port : 0;
      try {
        const r = await runInstaller(shell, ['--reconfigure', '--dir', dir, '--bind', '127.0.0.1', '--port', String(takenPort)], { env: env() });
        assert.equal(r.code, 1, r.output);
        assert.match(r.stderr, /error: Kade did not come up with the new settings; putting the previous \.env back/);
        assert.match(r.stderr, /error: the reconfiguration failed; Kade runs again with the previous settings/);
      } finally {
        await new Promise((resolveClose) => taken.close(resolveClose));
      }
      assert.equal(await readFile(join(dir, '.env'), 'utf8'), envBefore);
      assert.equal((await stat(join(dir, '.env'))).mode & 0o777, 0o600);
      assert.ok(await healthz(port, '[::1]'), 'Kade answers where it did before');
    });

    test('--uninstall stops Kade and lists what remains; --purge --yes removes the volume and the base directory', async () => {
      const volumes = await volumesOf(project);
      assert.equal(volumes.length > 0, true, 'Kade has a data volume');
      const r = await runInstaller(shell, ['--uninstall', '--dir', dir], { env: env() });
      assert.equal(r.code, 0, r.output);
      assert.deepEqual(await containersOf(project), []);
      assert.match(r.stdout, /What remains:/);
      assert.match(r.stdout, new RegExp(`the install directory ${dir}`));
      for (const v of volumes) assert.match(r.stdout, new RegExp(`the data volume ${v}`));
      assert.match(r.stdout, new RegExp(`the data directory \\(BASE_DIR\\) ${base}`));
      assert.ok(existsSync(join(dir, '.env')) && existsSync(base), 'files are kept');
      assert.deepEqual(await volumesOf(project), volumes);

      const p = await runInstaller(shell, ['--uninstall', '--purge', '--yes', '--dir', dir], { env: env() });
      assert.equal(p.code, 0, p.output);
      assert.deepEqual(await volumesOf(project), []);
      assert.equal(existsSync(base), false);
      assert.ok(existsSync(dir), 'the install directory is left for the user');
    });

    test('without git: installs from the archive over curl with --token in a 0600 --config file, gone afterwards; --update replaces the tree', async () => {
      const root = await tempDir(`${slug}-archive`);
      const adir = join(root, 'kade');
      const aproject = `${project}-archive`;
      const aport = await freePort();
      seenFiles.length = 0;
      authorizedRequests = 0;
      try {
        const r = await runInstaller(
          shell,
          ['--yes', '--user', 'root', '--dir', adir, '--base-dir', join(root, 'base'), '--port', String(aport), '--token', TOKEN],
          { env: env({ PATH: noGit, SVC_SOURCE_URL: tokenGit?.url('kade'), COMPOSE_PROJECT_NAME: aproject }) },
        );
        assert.equal(r.code, 0, r.output);
        assert.match(r.stdout, /git is not installed: fetching the archive http:\/\/127\.0\.0\.1:\d+\/kade\/archive\/main\.tar\.gz/);
        assert.ok(await healthz(aport), 'healthz answers');
        assert.equal(existsSync(join(adir, '.git')), false);
        assert.ok(existsSync(join(adir, 'compose.yaml')));
        assert.ok(authorizedRequests > 0, 'the token reached the server');
        const during = seenFiles.flat().find((f) => f.name === 'curl-config');
        assert.ok(during, 'the curl config existed while the archive was fetched');
        assert.equal(during.mode, 0o600);
        assert.match(during.content, new RegExp(`user = "x-access-token:${TOKEN}"`));
        assert.deepEqual(tokenFiles(tmp), [], 'no token file is left');
        assert.doesNotMatch(await readFile(join(adir, '.env'), 'utf8'), new RegExp(TOKEN));

        // --update of an archive installation: the new archive replaces the tree, .env stays.
        const envBefore = await readFile(join(adir, '.env'), 'utf8');
        const next = await variant(tree, (d) => rm(join(d, 'README.md'), { force: true }));
        const previous = archive;
        try {
          archive = await archiveOf(next, 'kade-main');
        } finally {
          await removeAll(next);
        }
        try {
          const up = await runInstaller(shell, ['--update', '--dir', adir, '--token', TOKEN], { env: env({ PATH: noGit, SVC_SOURCE_URL: '', SVC_IMAGE: '' }) });
          assert.equal(up.code, 0, up.output);
          assert.match(up.stdout, /Kade is updated/);
        } finally {
          archive = previous;
        }
        assert.equal(existsSync(join(adir, 'README.md')), false, 'the tree is the new archive');
        assert.equal(await readFile(join(adir, '.env'), 'utf8'), envBefore);
        assert.equal(existsSync(`${adir}.previous`), false);
        assert.ok(await healthz(aport), 'healthz answers after the update');
        assert.deepEqual(tokenFiles(tmp), [], 'no token file is left');

        const u = await runInstaller(shell, ['--uninstall', '--purge', '--yes', '--dir', adir], { env: env() });
        assert.equal(u.code, 0, u.output);
        assert.deepEqual(await containersOf(aproject), []);
      } finally {
        await tearDown(adir, root);
      }
    });

    test('--token with git: a 0600 credential-store file while cloning, the token reaches the server, nothing left after success or failure', async () => {
      const root = await tempDir(`${slug}-token`);
      const tdir = join(root, 'kade');
      const tproject = `${project}-token`;
      const tport = await freePort();
      try {
        seenFiles.length = 0;
        authorizedRequests = 0;
        const bad = await runInstaller(
          shell,
          ['--yes', '--user', 'root', '--dir', join(root, 'bad'), '--base-dir', join(root, 'bad-base'), '--branch', 'nope', '--token', TOKEN],
          {
            env: env({ SVC_SOURCE_URL: tokenGit?.url('kade'), COMPOSE_PROJECT_NAME: `${tproject}-bad` }),
          },
        );
        assert.equal(bad.code, 1, bad.output);
        assert.match(bad.stderr, /git clone of .* \(nope\) failed/);
        assert.ok(
          seenFiles.flat().some((f) => f.name === 'git-credentials'),
          'the credential file existed during the failed clone',
        );
        assert.deepEqual(tokenFiles(tmp), [], 'no token file is left after a failure');

        seenFiles.length = 0;
        authorizedRequests = 0;
        const r = await runInstaller(
          shell,
          ['--yes', '--user', 'root', '--dir', tdir, '--base-dir', join(root, 'base'), '--port', String(tport), '--token', TOKEN],
          {
            env: env({ SVC_SOURCE_URL: tokenGit?.url('kade'), COMPOSE_PROJECT_NAME: tproject }),
          },
        );
        assert.equal(r.code, 0, r.output);
        assert.ok(authorizedRequests > 0, 'the token reached the git server');
        const cred = seenFiles.flat().find((f) => f.name === 'git-credentials');
        assert.ok(cred, 'the credential file existed during the clone');
        assert.equal(cred.mode, 0o600);
        const origin = new URL(tokenGit?.url('kade') ?? '');
        assert.equal(cred.content.trim(), `http://x-access-token:${TOKEN}@${origin.host}`);
        assert.deepEqual(tokenFiles(tmp), [], 'no token file is left after success');
        assert.doesNotMatch(await readFile(join(tdir, '.git', 'config'), 'utf8'), new RegExp(TOKEN));
        assert.ok(await healthz(tport));
        const u = await runInstaller(shell, ['--uninstall', '--purge', '--yes', '--dir', tdir], { env: env() });
        assert.equal(u.code, 0, u.output);
      } finally {
        await tearDown(tdir, root);
      }
    });
  });
}
