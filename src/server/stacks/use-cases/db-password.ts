/**
 * Database passwords live in two places: the `.env` Kade renders and the data directory the
 * database wrote on its first start. Official PostgreSQL and MariaDB/MySQL images read their
 * password variables only on that first start, so a changed password must be set inside the
 * running database before the stack restarts with the new `.env`.
 */
import { AppError } from '../../core/errors.ts';
import type { Engine } from '../../engine/engine.ts';

export type DbKind = 'postgres' | 'mysql';

/** A database account whose password comes from a `.env` variable. */
export interface DbSecret {
  service: string;
  kind: DbKind;
  account: 'user' | 'root';
  /** The user name as written in the compose file (may hold `${VAR}`); null for the image default. */
  userRef: string | null;
  /** The `.env` variable the password value references, e.g. DB_PASSWORD for `${DB_PASSWORD}`. */
  passwordEnv: string;
  /** The password value as written, e.g. `${DB_PASSWORD}` or `${DB_PASSWORD:-x}`. */
  passwordRef: string;
}

export interface DbPasswordChange {
  secret: DbSecret;
  /** The resolved account name inside the database. */
  user: string;
  oldPassword: string;
  newPassword: string;
}

type ExecEngine = Pick<Engine, 'exec' | 'inspectContainer'>;

const EXEC_TIMEOUT_MS = 30_000;

/** `${NAME}`, `$NAME`, or `${NAME}` with a default or error modifier: the only forms Kade treats as a secret reference. */
const REFERENCE = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(?::?-|:?\?)[^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*))$/;

/** The environment of a compose service as a map; `KEY` without a value (taken from the shell) becomes null. */
export function environmentOf(service: unknown): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const env = (service as { environment?: unknown } | null)?.environment;
  if (Array.isArray(env)) {
    for (const item of env) {
      const s = String(item);
      const eq = s.indexOf('=');
      if (eq < 0) out.set(s, null);
      else out.set(s.slice(0, eq), s.slice(eq + 1));
    }
  } else if (env && typeof env === 'object') {
    for (const [k, v] of Object.entries(env)) out.set(k, v === null || v === undefined ? null : String(v));
  }
  return out;
}

/** The first key of `keys` the environment has, with its value. */
function pick(env: Map<string, string | null>, keys: string[]): { key: string; value: string | null } | null {
  for (const key of keys) if (env.has(key)) return { key, value: env.get(key) ?? null };
  return null;
}

function referencedVariable(value: string | null): string | null {
  if (value === null) return null;
  const m = REFERENCE.exec(value.trim());
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** MariaDB images read MARIADB_* first and fall back to MYSQL_*; PostgreSQL images read POSTGRES_*. */
const ACCOUNTS: { kind: DbKind; account: 'user' | 'root'; password: string[]; user: string[] | null }[] = [
  { kind: 'postgres', account: 'user', password: ['POSTGRES_PASSWORD'], user: ['POSTGRES_USER'] },
  { kind: 'mysql', account: 'user', password: ['MARIADB_PASSWORD', 'MYSQL_PASSWORD'], user: ['MARIADB_USER', 'MYSQL_USER'] },
  { kind: 'mysql', account: 'root', password: ['MARIADB_ROOT_PASSWORD', 'MYSQL_ROOT_PASSWORD'], user: null },
];

/** The last part of an image's repository name, e.g. `postgres` for `ghcr.io/immich-app/postgres:14@sha256:…`. */
function imageName(image: unknown): string {
  if (typeof image !== 'string') return '';
  const repo = image.split('@')[0] ?? '';
  const last = repo.slice(repo.lastIndexOf('/') + 1);
  const colon = last.indexOf(':');
  return (colon < 0 ? last : last.slice(0, colon)).toLowerCase();
}

/** Images that run a PostgreSQL or MariaDB/MySQL server and read the official images' variables. */
const SERVER_IMAGES: Readonly<Record<string, DbKind>> = {
  postgres: 'postgres',
  postgis: 'postgres',
  timescaledb: 'postgres',
  'timescaledb-ha': 'postgres',
  pgvector: 'postgres',
  'pgvecto-rs': 'postgres',
  mariadb: 'mysql',
  mysql: 'mysql',
  'mysql-server': 'mysql',
  'percona-server': 'mysql',
  percona: 'mysql',
};

/** Variables only the server images read; an app that talks to a database names its host instead. */
const SERVER_VARIABLES: { kind: DbKind; keys: string[] }[] = [
  { kind: 'postgres', keys: ['POSTGRES_PASSWORD', 'POSTGRES_PASSWORD_FILE', 'POSTGRES_HOST_AUTH_METHOD'] },
  {
    kind: 'mysql',
    keys: [
      ...['MARIADB_', 'MYSQL_'].flatMap((p) => [`${p}ROOT_PASSWORD`, `${p}ROOT_PASSWORD_FILE`, `${p}PASSWORD`, `${p}RANDOM_ROOT_PASSWORD`]),
      'MARIADB_ALLOW_EMPTY_ROOT_PASSWORD',
      'MYSQL_ALLOW_EMPTY_PASSWORD',
    ],
  },
];
const CLIENT_VARIABLES = ['POSTGRES_HOST', 'MYSQL_HOST', 'MARIADB_HOST', 'DB_HOST', 'DATABASE_HOST'];

/** A compose service that runs a database server. */
export interface DatabaseService {
  service: string;
  kind: DbKind;
  env: Map<string, string | null>;
}

/**
 * The database server a compose service runs, from its image's name, else from the variables
 * only the server images read (a service that also names a database host is a client of one).
 */
export function databaseKindOf(def: unknown): DbKind | null {
  const byImage = SERVER_IMAGES[imageName((def as { image?: unknown } | null)?.image)];
  if (byImage) return byImage;
  const env = environmentOf(def);
  if (CLIENT_VARIABLES.some((k) => env.has(k))) return null;
  return SERVER_VARIABLES.find((v) => v.keys.some((k) => env.has(k)))?.kind ?? null;
}

/** Every service of a parsed compose document that runs a PostgreSQL or MariaDB/MySQL server. */
export function findDatabaseServices(compose: unknown): DatabaseService[] {
  const services = (compose as { services?: unknown } | null)?.services;
  if (!services || typeof services !== 'object' || Array.isArray(services)) return [];
  const out: DatabaseService[] = [];
  for (const [service, def] of Object.entries(services)) {
    const kind = databaseKindOf(def);
    if (kind) out.push({ service, kind, env: environmentOf(def) });
  }
  return out;
}

/**
 * Every database account of a parsed compose document whose password is a `.env` reference.
 * A literal password, a `*_FILE` secret or an app user without a user name (the images then
 * create no such account) is not one Kade can keep in step, and is left out.
 */
export function findDatabaseSecrets(compose: unknown): DbSecret[] {
  const out: DbSecret[] = [];
  for (const { service, kind, env } of findDatabaseServices(compose)) {
    for (const a of ACCOUNTS.filter((x) => x.kind === kind)) {
      const password = pick(env, a.password);
      const passwordEnv = referencedVariable(password?.value ?? null);
      if (!password || password.value === null || !passwordEnv) continue;
      let userRef: string | null = null;
      if (a.user) {
        const user = pick(env, a.user);
        userRef = user?.value ?? null;
        if (a.kind === 'mysql' && !userRef) continue;
      }
      out.push({ service, kind: a.kind, account: a.account, userRef, passwordEnv, passwordRef: password.value.trim() });
    }
  }
  return out;
}

/**
 * Compose interpolation of one value against `.env` values: `$$`, `$NAME`, `${NAME}` and the
 * `:-`, `-`, `:?`, `?`, `:+`, `+` modifiers. Variables from the shell are not known here and read as unset.
 */
export function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(
    /\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (_m, body: string, braced?: string, op?: string, arg?: string, bare?: string) => {
      if (body === '$') return '$';
      const name = (braced ?? bare) as string;
      const set = Object.hasOwn(env, name);
      const value = set ? (env[name] as string) : '';
      if (!op) return value;
      const present = op.startsWith(':') ? value !== '' : set;
      if (op.endsWith('+')) return present ? (arg ?? '') : '';
      if (op.endsWith('-')) return present ? value : (arg ?? '');
      return value;
    },
  );
}

/** The account name inside the database: the compose value with its `.env` references resolved, or the image default. */
export function resolveUser(secret: DbSecret, env: Record<string, string>, _compose?: unknown): string {
  if (secret.account === 'root') return 'root';
  const user = secret.userRef === null ? '' : interpolate(secret.userRef, env);
  // The PostgreSQL images fall back to `postgres` for an empty or absent POSTGRES_USER.
  if (secret.kind === 'postgres' && user === '') return 'postgres';
  return user;
}

const sameAccount = (a: DbSecret, b: DbSecret) => a.service === b.service && a.kind === b.kind && a.account === b.account;

/**
 * The database passwords a reconfigure changes. The old compose and `.env` describe the running
 * database; an account counts only while the new compose still gives it a `.env` reference.
 * App users come before root accounts, because a user's password is changed by logging in as
 * root with the root password the running container still has.
 */
export function changedDatabasePasswords(
  oldCompose: unknown,
  newCompose: unknown,
  oldEnv: Record<string, string>,
  newEnv: Record<string, string>,
): DbPasswordChange[] {
  const after = findDatabaseSecrets(newCompose);
  const changes: DbPasswordChange[] = [];
  for (const secret of findDatabaseSecrets(oldCompose)) {
    const next = after.find((s) => sameAccount(s, secret));
    if (!next) continue;
    const oldPassword = interpolate(secret.passwordRef, oldEnv);
    const newPassword = interpolate(next.passwordRef, newEnv);
    if (oldPassword === newPassword) continue;
    changes.push({ secret, user: resolveUser(secret, oldEnv, oldCompose), oldPassword, newPassword });
  }
  return changes.sort((a, b) => Number(a.secret.account === 'root') - Number(b.secret.account === 'root'));
}

function failed(change: DbPasswordChange, why: string): AppError {
  const { service } = change.secret;
  return new AppError('db_password_failed', `could not change the database password of '${change.user}' in service '${service}': ${why}`, {
    params: { service, user: change.user },
  });
}

/**
 * The first line of a client's error output, without anything that could quote the statement:
 * PostgreSQL adds `LINE n:` context and MariaDB a `near '...'` excerpt, either of which can hold the password.
 */
export function safeReason(stderr: string, secrets: string[]): string {
  let line = stderr.split('\n').find((l) => l.trim() !== '') ?? '';
  const near = line.indexOf(" near '");
  if (near >= 0) line = line.slice(0, near);
  for (const s of secrets) if (s.length >= 3) line = line.split(s).join('***');
  line = line.trim().slice(0, 300);
  return line || 'the database client gave no reason';
}

/** A PostgreSQL E'' string literal: the same in every standard_conforming_strings setting. */
export function pgString(s: string): string {
  return `E'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

function pgIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** A MySQL/MariaDB string literal, for a session without NO_BACKSLASH_ESCAPES (the scripts switch it off first). */
function myString(s: string): string {
  const map: Record<string, string> = { '\\': '\\\\', "'": "''", '\0': '\\0', '\n': '\\n', '\r': '\\r', '\x1a': '\\Z' };
  return `'${Array.from(s, (c) => map[c] ?? c).join('')}'`;
}

const MY_SESSION = "SET SESSION sql_mode = REPLACE(@@SESSION.sql_mode, 'NO_BACKSLASH_ESCAPES', '');";

/** Undoes the escaping of `--batch` output. */
function unbatch(s: string): string {
  const map: Record<string, string> = { '\\\\': '\\', '\\t': '\t', '\\n': '\n', '\\0': '\0' };
  return s.replace(/\\[\\tn0]/g, (c) => map[c] as string);
}

async function changePostgres(engine: ExecEngine, containerId: string, change: DbPasswordChange): Promise<void> {
  // Over the local socket, where the images trust local connections; the old password covers a stricter pg_hba.
  const r = await engine.exec(containerId, {
    cmd: ['psql', '-v', 'ON_ERROR_STOP=1', '--no-psqlrc', '--quiet', '-U', change.user, '-d', 'postgres'],
    user: 'postgres',
    env: [`PGPASSWORD=${change.oldPassword}`],
    stdin: `ALTER ROLE ${pgIdent(change.user)} WITH PASSWORD ${pgString(change.newPassword)};\n`,
    timeoutMs: EXEC_TIMEOUT_MS,
  });
  if (r.exitCode !== 0) throw failed(change, safeReason(r.stderr, [change.oldPassword, change.newPassword]));
}

function containerEnv(info: Record<string, unknown>): Record<string, string> {
  const list = ((info.Config as { Env?: string[] } | undefined)?.Env ?? []) as string[];
  const out: Record<string, string> = {};
  for (const e of list) {
    const eq = e.indexOf('=');
    if (eq > 0) out[e.slice(0, eq)] = e.slice(eq + 1);
  }
  return out;
}

async function changeMysql(engine: ExecEngine, containerId: string, change: DbPasswordChange): Promise<void> {
  // Root's password as the running container was created with; for a root change that is the old one.
  let rootPassword: string | undefined = change.oldPassword;
  if (change.secret.account !== 'root') {
    const env = containerEnv(await engine.inspectContainer(containerId));
    rootPassword = env.MARIADB_ROOT_PASSWORD || env.MYSQL_ROOT_PASSWORD || undefined;
  }
  const secrets = [change.oldPassword, change.newPassword, ...(rootPassword ? [rootPassword] : [])];
  const probe = await engine.exec(containerId, { cmd: ['sh', '-c', 'command -v mariadb || command -v mysql'], timeoutMs: EXEC_TIMEOUT_MS });
  const client = probe.stdout.trim().split('\n')[0] ?? '';
  if (probe.exitCode !== 0 || client === '') throw failed(change, 'the container has no mariadb or mysql client');
  // Without a root password (MARIADB_RANDOM_ROOT_PASSWORD) the MariaDB images still let the OS root in over the socket.
  const run = (sql: string) =>
    engine.exec(containerId, {
      cmd: [client, '--user=root', '--batch', '--skip-column-names', '--default-character-set=utf8mb4'],
      user: 'root',
      env: rootPassword ? [`MYSQL_PWD=${rootPassword}`] : [],
      stdin: `${MY_SESSION}\n${sql}\n`,
      timeoutMs: EXEC_TIMEOUT_MS,
    });
  const found = await run(`SELECT VERSION();\nSELECT host FROM mysql.user WHERE user = ${myString(change.user)};`);
  if (found.exitCode !== 0) throw failed(change, safeReason(found.stderr, secrets));
  const [version = '', ...hosts] = found.stdout.split('\n').filter((l) => l !== '');
  if (hosts.length === 0) throw failed(change, 'the database has no such user');
  // MariaDB's ALTER USER would replace the whole authentication list (root's `OR unix_socket` included);
  // SET PASSWORD changes only the password. MySQL 8 has no PASSWORD() and keeps the plugin on ALTER USER.
  const mariadb = /mariadb/i.test(version);
  const statements = hosts.map((h) => {
    const account = `${myString(change.user)}@${myString(unbatch(h))}`;
    return mariadb
      ? `SET PASSWORD FOR ${account} = PASSWORD(${myString(change.newPassword)});`
      : `ALTER USER ${account} IDENTIFIED BY ${myString(change.newPassword)};`;
  });
  const altered = await run(`${statements.join('\n')}\nFLUSH PRIVILEGES;`);
  if (altered.exitCode !== 0) throw failed(change, safeReason(altered.stderr, secrets));
}

/**
 * Sets a new password for one account inside the running database container. Passwords travel only
 * in the exec environment and on standard input, never in the argument list or in an error.
 * Throws AppError `db_password_failed` naming service and user.
 */
export async function changeDatabasePassword(engine: ExecEngine, containerId: string, change: DbPasswordChange): Promise<void> {
  if (change.newPassword === '') throw failed(change, 'the new password is empty');
  if (change.newPassword.includes('\0')) throw failed(change, 'the new password contains a NUL character');
  try {
    if (change.secret.kind === 'postgres') await changePostgres(engine, containerId, change);
    else await changeMysql(engine, containerId, change);
  } catch (err) {
    if (err instanceof AppError && err.code === 'db_password_failed') throw err;
    // Engine errors name containers, never a secret; keep their reason.
    throw failed(change, err instanceof AppError ? err.message : 'the container engine failed');
  }
}

/**
 * Applies `changes` in order (as changedDatabasePasswords sorts them) in the containers of their
 * services. When one fails, the ones already made are set back, newest first, so the database
 * matches the restored backup again; then the first failure is thrown.
 */
export async function applyDatabasePasswordChanges(
  engine: ExecEngine,
  containerOf: Readonly<Record<string, string>>,
  changes: DbPasswordChange[],
): Promise<void> {
  const done: { id: string; change: DbPasswordChange }[] = [];
  for (const change of changes) {
    const id = containerOf[change.secret.service];
    try {
      if (!id) throw failed(change, `service '${change.secret.service}' has no running container`);
      await changeDatabasePassword(engine, id, change);
      done.push({ id, change });
    } catch (err) {
      const notUndone: string[] = [];
      for (const d of done.reverse()) {
        const back = { ...d.change, oldPassword: d.change.newPassword, newPassword: d.change.oldPassword };
        await changeDatabasePassword(engine, d.id, back).catch(() => notUndone.push(`'${d.change.user}' in '${d.change.secret.service}'`));
      }
      if (notUndone.length > 0 && err instanceof AppError) {
        throw new AppError(err.code, `${err.message}; setting back the password of ${notUndone.join(', ')} failed as well`, { params: err.params });
      }
      throw err;
    }
  }
}
