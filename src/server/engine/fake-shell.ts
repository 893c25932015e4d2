/**
 * The commands the fake engine's containers can run: a few busybox programs and `sh -c` with `;`, `&&`, `||`, `exit N`,
 * `$NAME` and `>&2`, enough for the contract cases and for tests that need a container to say something. Deterministic:
 * `sleep` does not wait, it says how long it would have run (a main process that sleeps keeps its container
 * running; an exec or a run that sleeps past its time-out fails as the real one does). Tests add programs of their
 * own (`pg_dumpall`, `psql`) with `FakeEngine.program`.
 */

export interface ProgramRun {
  args: string[];
  stdin: string;
  env: Record<string, string>;
  /** The user the command runs as, `uid[:gid]` or a name; null for the image's (root). */
  user: string | null;
  /** The files the container sees (its host's, for the probe containers), by absolute path. */
  files: ReadonlyMap<string, string>;
  /** Where `> /proc/1/fd/1` writes: the container's main output, its log. */
  toMain?: (text: string) => void;
}

export interface ProgramOutput {
  exitCode: number;
  stdout?: string;
  stderr?: string;
  /** How long the command would still run (ms); Infinity for a server or `sleep infinity`. */
  runsMs?: number;
  /** Both streams in the order they were written (a container's log keeps it). */
  output?: { stream: 'stdout' | 'stderr'; text: string }[];
}

export type Program = (run: ProgramRun) => ProgramOutput;

const ok = (stdout = ''): ProgramOutput => ({ exitCode: 0, stdout });

function tail(run: ProgramRun): ProgramOutput {
  // `tail -n +1 a b`: each file after a `==> name <==` header, as the host probe reads the socket tables.
  const files = run.args[0] === '-n' ? run.args.slice(2) : run.args;
  let stdout = '';
  let stderr = '';
  for (const f of files) {
    const text = run.files.get(f);
    if (text === undefined) stderr += `tail: can't open '${f}': No such file or directory\n`;
    else stdout += `${stdout ? '\n' : ''}==> ${f} <==\n${text}`;
  }
  return { exitCode: stderr ? 1 : 0, stdout, stderr };
}

export const BUILTINS: Record<string, Program> = {
  echo: (r) => ok(`${r.args.join(' ')}\n`),
  true: () => ok(),
  false: () => ({ exitCode: 1 }),
  cat: (r) => {
    if (r.args.length === 0) return ok(r.stdin);
    const missing = r.args.find((f) => !r.files.has(f));
    if (missing) return { exitCode: 1, stderr: `cat: can't open '${missing}': No such file or directory\n` };
    return ok(r.args.map((f) => r.files.get(f)).join(''));
  },
  id: (r) => (r.args[0] === '-u' ? ok(`${(r.user ?? '0').split(':')[0]}\n`) : { exitCode: 1, stderr: 'id: only -u is faked\n' }),
  sleep: (r) => ({ exitCode: 0, runsMs: r.args[0] === 'infinity' ? Number.POSITIVE_INFINITY : Number(r.args[0] ?? 0) * 1000 }),
  tail,
};

/** `$NAME` and `${NAME}` from `env`; an unset one is empty, as in sh. */
const expand = (text: string, env: Record<string, string>) => text.replace(/\$\{?(\w+)\}?/g, (_, name: string) => env[name] ?? '');

/** Splits one simple command into words: whitespace, single quotes (literal), double quotes and bare words (expanded). */
export function words(text: string, env: Record<string, string> = {}): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of text.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(expand(m[2].replace(/\\(.)/g, '$1'), env));
    else out.push(expand(m[3] ?? '', env));
  }
  return out;
}

/** Runs `cmd` with `programs` (the built-ins and a test's own): `sh -c script` or one program. */
export function runCommand(cmd: string[], run: Omit<ProgramRun, 'args'>, programs: Record<string, Program>): ProgramOutput {
  if ((cmd[0] === 'sh' || cmd[0] === '/bin/sh') && cmd[1] === '-c') return runScript(cmd[2] ?? '', run, programs);
  const program = programs[cmd[0] ?? ''];
  if (!program) return { exitCode: 127, stderr: `exec: "${cmd[0] ?? ''}": executable file not found in $PATH\n` };
  return program({ ...run, args: cmd.slice(1) });
}

function runProgram(argv: string[], run: Omit<ProgramRun, 'args'>, programs: Record<string, Program>): ProgramOutput {
  const program = programs[argv[0] ?? ''];
  return program ? program({ ...run, args: argv.slice(1) }) : { exitCode: 127, stderr: `sh: ${argv[0]}: not found\n` };
}

/** `command -v name`: where the program is, or exit code 1. */
function commandV(argv: string[], programs: Record<string, Program>): ProgramOutput {
  const name = argv[2] ?? '';
  return argv[1] === '-v' && programs[name] ? { exitCode: 0, stdout: `/usr/bin/${name}\n` } : { exitCode: 1 };
}

/** `a; b && c || d >&2; e > /proc/1/fd/1; exit 3`: statements run in order, `&&` skips on failure, the first that keeps running stops the rest. */
function runScript(script: string, run: Omit<ProgramRun, 'args'>, programs: Record<string, Program>): ProgramOutput {
  let stdout = '';
  let stderr = '';
  let exitCode = 0;
  const output: { stream: 'stdout' | 'stderr'; text: string }[] = [];
  const put = (stream: 'stdout' | 'stderr', text: string | undefined) => {
    if (!text) return;
    output.push({ stream, text });
    if (stream === 'stdout') stdout += text;
    else stderr += text;
  };
  for (const statement of script.split(/[;\n]/)) {
    // `a && b || c`: each part runs or is skipped by the exit code so far.
    const parts = statement.split(/(&&|\|\|)/);
    for (let i = 0; i < parts.length; i += 2) {
      const joint = parts[i - 1];
      if ((joint === '&&' && exitCode !== 0) || (joint === '||' && exitCode === 0)) continue;
      const argv = words(parts[i] ?? '', run.env);
      if (argv.length === 0) continue;
      const toStderr = argv.at(-1) === '>&2';
      if (toStderr) argv.pop();
      const toMain = argv.at(-1) === '/proc/1/fd/1' && argv.at(-2) === '>';
      if (toMain) argv.splice(-2);
      if (argv[0] === 'exit') return { exitCode: Number(argv[1] ?? exitCode), stdout, stderr, output };
      const out = argv[0] === 'command' ? commandV(argv, programs) : runProgram(argv, run, programs);
      if (toMain) run.toMain?.(out.stdout ?? '');
      else put(toStderr ? 'stderr' : 'stdout', out.stdout);
      put('stderr', out.stderr);
      exitCode = out.exitCode;
      if (out.runsMs) return { exitCode, stdout, stderr, output, runsMs: out.runsMs };
    }
  }
  return { exitCode, stdout, stderr, output };
}
