// The installer's engine-free behaviour: shellcheck, option checks, the no-terminal refusal, the
// dry run on a system without the engine, and the --doctor hand-over. Under dash and busybox sh.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { DEFAULT_BASE_DIR } from '../../src/shared/paths.ts';
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

test("compose.yaml gives Kade's container the zone of .env: TZ, and SVC_LOCALTIME read-only on /etc/localtime", async () => {
  const dir = await tempDir('compose-tz');
  try {
    await writeFile(join(dir, 'compose.yaml'), await readFile(resolve('compose.yaml'), 'utf8'));
    await writeFile(join(dir, '.env'), 'BASE_DIR=/srv/kade-tz\nTZ=Europe/Amsterdam\nSVC_LOCALTIME=/usr/share/zoneinfo/Europe/Amsterdam\n');
    const cli = await execFileP('docker', ['compose', 'version']).then(
      () => ['docker', 'compose'],
      () => ['docker-compose'],
    );
    const [cmd = 'docker-compose', ...pre] = cli;
    const { stdout } = await execFileP(cmd, [...pre, 'config'], { cwd: dir });
    assert.match(stdout, /^\s+TZ: Europe\/Amsterdam$/m);
    assert.match(
      stdout,
      /\/usr\/share\/zoneinfo\/Europe\/Amsterdam:\/etc\/localtime:ro|source: \/usr\/share\/zoneinfo\/Europe\/Amsterdam\n\s+target: \/etc\/localtime\n\s+read_only: true/,
    );
  } finally {
    await removeAll(dir);
  }
});

test("the BASE_DIR of the server's fix line is the installer's default, which install.sh takes; docs/settings.md and the README name it", async () => {
  const installerDefault = /^DEFAULT_BASE_DIR='([^']+)'$/m.exec(await readFile(INSTALLER, 'utf8'))?.[1];
  assert.equal(DEFAULT_BASE_DIR, installerDefault);
  const work = await tempDir('base-default');
  const path = await pathWithout(['docker', 'docker-compose', 'dockerd', 'apt-cache']);
  try {
    await writeFile(join(path, 'apt-cache'), '#!/bin/sh\necho "  Candidate: (none)"\n');
    await chmod(join(path, 'apt-cache'), 0o755);
    // With the installer's own install folder (the default --dir): the advice must not be what it refuses.
    const shell = SHELLS[0];
    assert.ok(shell);
    const r = await runInstaller(shell, ['--dry-run', '--yes', '--user', 'root', '--base-dir', DEFAULT_BASE_DIR], {
      env: { ...process.env, PATH: path, TMPDIR: work, SVC_SOURCE_URL: NOWHERE },
    });
    assert.equal(r.code, 0, r.output);
    assert.match(r.stdout, new RegExp(`base directory ${DEFAULT_BASE_DIR}$`, 'm'));
    assert.ok((await readFile(resolve('docs/settings.md'), 'utf8')).includes(`\`BASE_DIR=${DEFAULT_BASE_DIR}\``));
    assert.match(
      await readFile(resolve('README.md'), 'utf8'),
      new RegExp(`^\\| \`BASE_DIR\` \\|.*\`install\\.sh\`: \`${DEFAULT_BASE_DIR}\`.*fix line \`BASE_DIR=${DEFAULT_BASE_DIR}\``, 'm'),
    );
  } finally {
    await removeAll(work, path);
  }
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

    test('--dry-run without --user or --yes and without a terminal shows every step to the end for the recommended account', async () => {
      const dir = join(work, 'dry-ask');
      const r = await runInstaller(shell, ['--dry-run', '--dir', dir, '--base-dir', join(work, 'dry-ask-base')], { env: env({ PATH: noEngine }) });
      assert.equal(r.code, 0, r.output);
      assert.match(
        r.stdout,
        /Account: an install would ask which account Kade runs as \(no terminal here\); shown for the recommended 'svc' \(choose with --user\)/,
      );
      assert.match(r.stdout, /\+ write .*\.env \(mode 0600\)/);
      assert.match(r.stdout, /Dry run done: nothing was changed/);
      assert.equal(existsSync(dir), false);
      // Without --dry-run the questions still need a terminal or answers on the command line.
      const real = await runInstaller(shell, ['--dir', dir, '--base-dir', join(work, 'dry-ask-base')], { env: env() });
      assert.equal(real.code, 1, real.output);
      assert.match(real.stderr, /no terminal to ask: 'Continue\?'; pass --yes to answer yes/);
      assert.equal(existsSync(dir), false);
    });

    test("the host's time zone goes to .env as TZ, with the host's /etc/localtime for compose.yaml to mount (/etc/timezone, timedatectl, the link)", async () => {
      // Without the engine (a dry run asks nothing of it) and without timedatectl, but with an apt-cache that answers
      // at once (the real one takes seconds to say which compose package an install would offer).
      const noClock = await pathWithout(['docker', 'docker-compose', 'dockerd', 'timedatectl', 'apt-cache']);
      await writeFile(join(noClock, 'apt-cache'), '#!/bin/sh\necho "  Candidate: (none)"\n');
      await chmod(join(noClock, 'apt-cache'), 0o755);
      const fakeClock = join(work, 'fake-clock');
      await mkdir(fakeClock, { recursive: true });
      await writeFile(join(fakeClock, 'timedatectl'), '#!/bin/sh\n[ "$*" = "show --property=Timezone --value" ] && echo America/New_York\n');
      await chmod(join(fakeClock, 'timedatectl'), 0o755);
      const dryRun = async (etc: string, path: string) => {
        const r = await runInstaller(shell, ['--dry-run', '--yes', '--dir', join(work, 'tz-dir'), '--base-dir', join(work, 'tz-base'), '--user', 'root'], {
          env: env({ PATH: path, SVC_HOST_ETC: etc }),
        });
        assert.equal(r.code, 0, r.output);
        return /\+ write .*\.env \(mode 0600\): .* TZ=(\S+) SVC_LOCALTIME=(\S+)/.exec(r.stdout)?.slice(1) ?? r.stdout;
      };
      // Debian: /etc/timezone and the zone's file as /etc/localtime.
      const debian = join(work, 'etc-debian');
      await mkdir(debian, { recursive: true });
      await writeFile(join(debian, 'timezone'), 'Europe/Amsterdam\n');
      await writeFile(join(debian, 'localtime'), 'TZif');
      assert.deepEqual(await dryRun(debian, noClock), ['Europe/Amsterdam', join(debian, 'localtime')]);
      // systemd without /etc/timezone: timedatectl says; no /etc/localtime here, so the zone's own file (or /dev/null).
      const systemd = join(work, 'etc-systemd');
      await mkdir(systemd, { recursive: true });
      const nyFile = existsSync('/usr/share/zoneinfo/America/New_York') ? '/usr/share/zoneinfo/America/New_York' : '/dev/null';
      assert.deepEqual(await dryRun(systemd, `${fakeClock}:${noClock}`), ['America/New_York', nyFile]);
      // Only the link: the zone is read from where it points.
      const linked = join(work, 'etc-link');
      await mkdir(linked, { recursive: true });
      await symlink('/usr/share/zoneinfo/Asia/Tokyo', join(linked, 'localtime'));
      assert.deepEqual((await dryRun(linked, noClock))[0], 'Asia/Tokyo');
      // Nothing says, or what it says is not a zone name: UTC.
      const odd = join(work, 'etc-odd');
      await mkdir(odd, { recursive: true });
      await writeFile(join(odd, 'timezone'), '../../etc/passwd\n');
      assert.deepEqual(await dryRun(odd, noClock), ['UTC', existsSync('/usr/share/zoneinfo/UTC') ? '/usr/share/zoneinfo/UTC' : '/dev/null']);
      await removeAll(noClock);
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
