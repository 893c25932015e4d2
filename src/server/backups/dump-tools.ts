/**
 * The database tools behind dumps.ts: who to log in as, the command lines of pg_dumpall, psql,
 * mariadb-dump and the MariaDB client, and the few statements around a PostgreSQL load. Passwords go
 * only into the exec environment (PGPASSWORD, MYSQL_PWD), never into an argument list.
 */
import { Transform } from 'node:stream';
import type { TemplateDatabaseT } from '../../shared/template.ts';
import { AppError } from '../core/errors.ts';
import type { Engine } from '../engine/engine.ts';
import { interpolate, pgString, safeReason } from '../stacks/use-cases/db-password.ts';

export type DatabaseKind = 'postgres' | 'mariadb';

/** A database server to dump, and the account that sees all of it. */
export interface DatabaseSpec {
  service: string;
  kind: DatabaseKind;
  user: string;
  password: string;
  /** The app's own database, where the stack names one. */
  database: string | null;
}

/** A command to run in the database container. */
export interface ToolRun {
  cmd: string[];
  env: string[];
  user: string;
}

type ExecEngine = Pick<Engine, 'exec'>;

/**
 * The account and password of one database service. A variable of the service's environment is
 * resolved through `.env` as compose does; a declared variable the service does not set is read from
 * `.env` itself. MariaDB: root when the service has a root password (or no app user), else the app user.
 */
export function credentialsOf(
  service: string,
  kind: DatabaseKind,
  serviceEnv: Map<string, string | null>,
  env: Readonly<Record<string, string>>,
  declared?: TemplateDatabaseT,
): DatabaseSpec {
  const read = (name: string): string | null => {
    if (!serviceEnv.has(name)) return null;
    const value = serviceEnv.get(name) ?? null;
    return value === null ? (env[name] ?? '') : interpolate(value, env);
  };
  const first = (names: string[]) => names.map(read).find((v) => v) ?? '';
  const named = (name: string | undefined, fallback: string[]) => (name ? (read(name) ?? env[name] ?? '') : first(fallback));
  if (kind === 'postgres') {
    // The images fall back to `postgres` for the user and to the user's name for the database.
    const user = named(declared?.user_env, ['POSTGRES_USER']) || 'postgres';
    const password = named(declared?.password_env, ['POSTGRES_PASSWORD']);
    return { service, kind, user, password, database: named(declared?.database_env, ['POSTGRES_DB']) || user };
  }
  const rootPassword = first(['MARIADB_ROOT_PASSWORD', 'MYSQL_ROOT_PASSWORD']);
  const appUser = first(['MARIADB_USER', 'MYSQL_USER']);
  const user = declared?.user_env ? read(declared.user_env) || env[declared.user_env] || 'root' : rootPassword || !appUser ? 'root' : appUser;
  const ownPassword = user === 'root' ? rootPassword : first(['MARIADB_PASSWORD', 'MYSQL_PASSWORD']);
  const password = declared?.password_env ? named(declared.password_env, []) : ownPassword;
  return { service, kind, user, password, database: named(declared?.database_env, ['MARIADB_DATABASE', 'MYSQL_DATABASE']) || null };
}

/**
 * The line of a tool's error output that says what went wrong (notices and warnings come first),
 * passwords masked, without any quoted statement (db-password.ts).
 */
export function toolReason(stderr: string, secrets: string[]): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  const line = lines.find((l) => /error|fatal|denied|failed|not found|no such|unknown|cannot|could not/i.test(l)) ?? lines[0] ?? '';
  return safeReason(line, secrets);
}

/** The first of `names` the container has on its PATH (MariaDB images name their tools mariadb-*, MySQL mysql*). */
async function tool(engine: ExecEngine, containerId: string, names: string[]): Promise<string> {
  const r = await engine.exec(containerId, { cmd: ['sh', '-c', names.map((n) => `command -v ${n}`).join(' || ')], timeoutMs: 30_000 });
  const path = r.stdout.trim().split('\n')[0] ?? '';
  if (r.exitCode !== 0 || path === '')
    throw new AppError('not_found', `the container has no ${names.join(' or ')}`, { params: { what: 'tool', name: names[0] ?? '' } });
  return path;
}

const pgEnv = (spec: DatabaseSpec) => (spec.password ? [`PGPASSWORD=${spec.password}`] : []);
const myEnv = (spec: DatabaseSpec) => (spec.password ? [`MYSQL_PWD=${spec.password}`] : []);

/** psql over the local socket (the images trust it; the password covers a stricter pg_hba). */
const psql = (spec: DatabaseSpec, extra: string[]): ToolRun => ({
  cmd: ['psql', '-v', 'ON_ERROR_STOP=1', '--no-psqlrc', '--quiet', '--no-password', '-U', spec.user, '-d', 'postgres', ...extra],
  env: pgEnv(spec),
  user: 'postgres',
});

/** The dump of every role and database, each preceded by the statement that drops it. */
export async function dumpCommand(engine: ExecEngine, containerId: string, spec: DatabaseSpec): Promise<ToolRun> {
  if (spec.kind === 'postgres') {
    return { cmd: ['pg_dumpall', '--clean', '--if-exists', '--no-password', '-U', spec.user], env: pgEnv(spec), user: 'postgres' };
  }
  const dump = await tool(engine, containerId, ['mariadb-dump', 'mysqldump']);
  return {
    cmd: [
      dump,
      `--user=${spec.user}`,
      '--all-databases',
      '--single-transaction',
      '--routines',
      '--events',
      '--add-drop-database',
      // The users are rows of the `mysql` database; a load makes them count at once.
      '--flush-privileges',
      '--hex-blob',
      '--default-character-set=utf8mb4',
    ],
    env: myEnv(spec),
    // Over the socket; the MariaDB images also let the OS root in as root without a password.
    user: 'root',
  };
}

export async function loadCommand(engine: ExecEngine, containerId: string, spec: DatabaseSpec): Promise<ToolRun> {
  if (spec.kind === 'postgres') return psql(spec, []);
  const client = await tool(engine, containerId, ['mariadb', 'mysql']);
  return { cmd: [client, `--user=${spec.user}`, '--default-character-set=utf8mb4'], env: myEnv(spec), user: 'root' };
}

/**
 * One readiness query. With a password it goes over TCP, which the images' temporary first-start
 * server does not listen on; without one over the socket, asking whether networking is on yet.
 */
export async function readyProbe(engine: ExecEngine, containerId: string, spec: DatabaseSpec): Promise<ToolRun> {
  if (spec.kind === 'postgres') {
    if (spec.password) return psql(spec, ['-h', '127.0.0.1', '-tAc', 'SELECT 1']);
    return psql(spec, ['-tAc', "SELECT 1 WHERE current_setting('listen_addresses') <> ''"]);
  }
  const client = await tool(engine, containerId, ['mariadb', 'mysql']);
  const base = [client, `--user=${spec.user}`, '--batch', '--skip-column-names'];
  if (spec.password) return { cmd: [...base, '--protocol=TCP', '--host=127.0.0.1', '-e', 'SELECT 1'], env: myEnv(spec), user: 'root' };
  return { cmd: [...base, '-e', 'SELECT 1 FROM DUAL WHERE @@skip_networking = 0'], env: [], user: 'root' };
}

const CLOSE_OTHERS = `SELECT coalesce(json_agg(datname), '[]') FROM pg_database WHERE datallowconn AND datname NOT IN ('postgres', 'template0');
DO $$ DECLARE d text; BEGIN
  FOR d IN SELECT datname FROM pg_database WHERE datallowconn AND datname NOT IN ('postgres', 'template0') LOOP
    EXECUTE format('ALTER DATABASE %I ALLOW_CONNECTIONS false', d);
  END LOOP;
  PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname IS NOT NULL AND datname <> 'postgres';
END $$;
`;

async function runSql(engine: ExecEngine, containerId: string, spec: DatabaseSpec, sql: string): Promise<string> {
  const r = await engine.exec(containerId, { ...psql(spec, ['-tA']), stdin: sql, timeoutMs: 60_000 });
  if (r.exitCode !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/**
 * Closes every database the dump drops and recreates to new sessions and ends the sessions in them,
 * so an app that is already running again cannot hold them open. Returns the databases it closed.
 */
export async function shutOutOthers(engine: ExecEngine, containerId: string, spec: DatabaseSpec): Promise<string[]> {
  const out = await runSql(engine, containerId, spec, CLOSE_OTHERS);
  return JSON.parse(out.split('\n')[0] ?? '[]') as string[];
}

/** Opens the given databases again (after a failed load). */
export async function allowConnections(engine: ExecEngine, containerId: string, spec: DatabaseSpec, names: string[]): Promise<void> {
  await runSql(
    engine,
    containerId,
    spec,
    `DO $$ DECLARE d text; BEGIN
  FOR d IN SELECT datname FROM pg_database WHERE NOT datallowconn AND datname IN (SELECT json_array_elements_text(${pgString(JSON.stringify(names))}::json)) LOOP
    EXECUTE format('ALTER DATABASE %I ALLOW_CONNECTIONS true', d);
  END LOOP;
END $$;
`,
  );
}

/** The forms pg_dumpall writes a role name in: bare when it is a plain lower-case name, else quoted. */
function roleForms(user: string): string[] {
  return [user, `"${user.replace(/"/g, '""')}"`];
}

/**
 * pg_dumpall's role section drops and creates the account it ran as, which fails for the account a load
 * is connected as (with ON_ERROR_STOP, fatally). Drops exactly those two lines before the first
 * `\connect`; everything after (the databases) passes through untouched.
 */
export function ownRoleLinesDropped(user: string): Transform {
  const skip = new Set(roleForms(user).flatMap((r) => [`DROP ROLE IF EXISTS ${r};`, `CREATE ROLE ${r};`]));
  let header = true;
  let pending = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _enc, next) {
      if (!header) return next(null, chunk);
      let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      let nl = data.indexOf(10);
      while (nl >= 0) {
        const line = data.subarray(0, nl + 1);
        data = data.subarray(nl + 1);
        const text = line.toString('utf8').replace(/\r?\n$/, '');
        if (text.startsWith('\\connect ')) {
          header = false;
          this.push(line);
          pending = Buffer.alloc(0);
          return next(null, data.length > 0 ? data : undefined);
        }
        if (!skip.has(text)) this.push(line);
        nl = data.indexOf(10);
      }
      pending = Buffer.from(data);
      next();
    },
    flush(next) {
      next(null, pending.length > 0 ? pending : undefined);
    },
  });
}
