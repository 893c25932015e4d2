// The installer's engine-free behaviour: shellcheck, option checks, the no-terminal refusal, the
// dry run on a system without the engine, and the --doctor hand-over. Under dash and busybox sh.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { INSTALLER, pathWithout, removeAll, runInstaller, runPiped, SHELLS, tempDir } from './installer.ts';

const execFileP = promisify(execFile);
// Nothing listens there: a dry run and a refused option contact no source.
const NOWHERE = 'http://127.0.0.1:9/kade.git';

test('install.sh passes shellcheck -s sh', async () => {
  const { stdout } = await execFileP('shellcheck', ['-s', 'sh', '-f', 'gcc', INSTALLER]).catch((err: { stdout?: string; message: string }) => {
    assert.fail(`shellcheck found problems:\n${err.stdout ?? err.message}`);
  });
  assert.equal(stdout, '');
});

for (const shell of SHELLS) {
  describe(`install.sh under ${shell.name}`, () => {
    let work = '';
    let noEngine = '';
    let noGit = '';
    before(async () => {
      work = await tempDir('options');
      noEngine = await pathWithout(['docker', 'docker-compose', 'dockerd']);
      noGit = await pathWithout(['git']);
    });
    after(() => removeAll(work, noEngine, noGit));

    const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, SVC_SOURCE_URL: NOWHERE, TMPDIR: work, ...extra });

    test('refuses a relative or system --base-dir and a relative --dir, naming the option, and creates nothing', async () => {
      const dir = join(work, 'refused');
      const cases: [string[], RegExp][] = [
        [['--base-dir', 'data/kade'], /--base-dir must be a full path/],
        [['--base-dir', '/etc'], /--base-dir \/etc is a system directory/],
        [['--base-dir', '/etc/'], /--base-dir \/etc is a system directory/],
        [['--base-dir', '/'], /--base-dir \/ is a system directory/],
        [['--base-dir', '/usr/lib/kade'], /--base-dir \/usr\/lib\/kade lies inside a system directory/],
        [['--base-dir', '/srv/../etc'], /--base-dir must be a plain full path/],
      ];
      for (const [args, message] of cases) {
        const r = await runInstaller(shell, ['--yes', '--user', 'root', '--dir', dir, ...args], { env: env() });
        assert.equal(r.code, 1, `${args.join(' ')}: ${r.output}`);
        assert.match(r.stderr, message);
      }
      const rel = await runInstaller(shell, ['--yes', '--dir', 'kade'], { env: env() });
      assert.equal(rel.code, 1);
      assert.match(rel.stderr, /--dir must be a full path starting with \/, got 'kade'/);
      assert.equal(existsSync(dir), false);
    });

    test('refuses bad values and options that do not go together', async () => {
      const cases: [string[], RegExp][] = [
        [['--port', '70000'], /--port must be a number from 1 to 65535, got '70000'/],
        [['--port', 'http'], /--port must be a number/],
        [['--bind', 'example.org'], /--bind must be an IPv4 or IPv6 address/],
        [['--bind', '300.1.1.1'], /--bind must be an IPv4 or IPv6 address/],
        [['--user', 'Bad Name'], /--user 'Bad Name' is not valid/],
        [['--branch', '--upload-pack=x'], /--branch needs a value/],
        [['--purge'], /--purge goes with --uninstall/],
        [['--update', '--port', '8500'], /--update keeps \.env; change --port, --bind, --user or --base-dir with --reconfigure/],
        [['--update', '--uninstall'], /choose one of/],
        [['--frobnicate'], /unknown option '--frobnicate'/],
      ];
      for (const [args, message] of cases) {
        const r = await runInstaller(shell, args, { env: env() });
        assert.equal(r.code, 1, `${args.join(' ')}: ${r.output}`);
        assert.match(r.stderr, message, args.join(' '));
      }
    });

    test('without a terminal and without --yes, the engine question is an error naming --yes', async () => {
      const dir = join(work, 'no-tty');
      const r = await runInstaller(shell, ['--dir', dir, '--base-dir', join(work, 'no-tty-base'), '--user', 'root'], {
        env: env({ PATH: noEngine }),
      });
      assert.equal(r.code, 1, r.output);
      assert.match(r.stderr, /no terminal to ask: 'Install docker\.io docker-compose[^']* with apt now\?'; pass --yes to answer yes/);
      assert.equal(existsSync(dir), false);
    });

    test('piped into the shell (curl | sh), the questions are read from the terminal: the account menu, a no to the engine', () => {
      const dir = join(work, 'piped');
      const menu = runPiped(shell, ['--dry-run', '--dir', dir, '--base-dir', join(work, 'piped-base')], '4\n', env());
      assert.equal(menu.code, 0, menu.output);
      assert.match(menu.stdout, /Which account should Kade run as\?/);
      assert.match(menu.stdout, /4\) root/);
      assert.match(menu.stdout, /Account: root \(uid 0, gid 0\)/);
      const no = runPiped(shell, ['--dir', dir, '--base-dir', join(work, 'piped-base'), '--user', 'root'], 'n\n', env({ PATH: noEngine }));
      assert.equal(no.code, 1, no.output);
      assert.match(no.output, /Install docker\.io docker-compose[^?]* with apt now\? \[y\/N\]/);
      assert.match(
        no.output,
        /error: Kade needs docker\.io docker-compose; install it \(apt-get install docker\.io docker-compose\) and run the installer again/,
      );
      assert.equal(existsSync(dir), false);
    });

    test('--dry-run on a system without the engine warns about the missing parts, shows the steps and changes nothing', async () => {
      const dir = join(work, 'dry');
      const base = join(work, 'dry-base');
      const r = await runInstaller(shell, ['--dry-run', '--dir', dir, '--base-dir', base, '--port', '8431', '--bind', '::1', '--user', 'root'], {
        env: env({ PATH: noEngine }),
      });
      assert.equal(r.code, 0, r.output);
      assert.match(r.stderr, /warning: docker and docker compose missing; an install would offer: apt-get install -y docker\.io docker-compose/);
      assert.match(r.stdout, new RegExp(`\\+ git clone --branch main -- ${NOWHERE} ${dir}`));
      assert.match(r.stdout, /\+ write .*\.env \(mode 0600\): SVC_PORT=8431 SVC_BIND=\[::1\] SVC_UID=0 SVC_GID=0/);
      assert.match(r.stdout, /compose build/);
      assert.match(r.stdout, /\+ poll http:\/\/\[::1\]:8431\/healthz up to 90 times/);
      assert.match(r.stdout, /Dry run done: nothing was changed/);
      assert.equal(existsSync(dir), false);
      assert.equal(existsSync(base), false);
    });

    test('--dry-run without git fetches the archive <source>/archive/<branch>.tar.gz; --host replaces the host', async () => {
      const dir = join(work, 'dry-archive');
      const r = await runInstaller(
        shell,
        ['--dry-run', '--yes', '--dir', dir, '--base-dir', join(work, 'b'), '--user', 'root', '--branch', 'v0.1.00', '--host', '127.0.0.2:9'],
        { env: env({ PATH: noGit }) },
      );
      assert.equal(r.code, 0, r.output);
      assert.match(r.stdout, /git is not installed: fetching the archive http:\/\/127\.0\.0\.2:9\/kade\/archive\/v0\.1\.00\.tar\.gz/);
      assert.equal(existsSync(dir), false);
    });

    test('--doctor hands over to scripts/doctor.sh of the installation with the same options and its exit code', async () => {
      const dir = join(work, 'doctor');
      await mkdir(join(dir, 'scripts'), { recursive: true });
      await writeFile(join(dir, 'scripts', 'doctor.sh'), '#!/bin/sh\nprintf "doctor in %s got:" "$SVC_INSTALL_DIR"\nprintf " [%s]" "$@"\necho\nexit 3\n');
      await chmod(join(dir, 'scripts', 'doctor.sh'), 0o755);
      const r = await runInstaller(shell, ['--doctor', '--dir', dir, '--bind', '127.0.0.1'], { env: env() });
      assert.equal(r.code, 3, r.output);
      assert.equal(r.stdout.trim(), `doctor in ${dir} got: [--doctor] [--dir] [${dir}] [--bind] [127.0.0.1]`);
      const none = await runInstaller(shell, ['--doctor', '--dir', join(work, 'nothing-here')], { env: env() });
      assert.equal(none.code, 1);
      assert.match(none.stderr, /no .*scripts\/doctor\.sh; is Kade installed in .*nothing-here\? \(pass --dir\)/);
    });
  });
}
