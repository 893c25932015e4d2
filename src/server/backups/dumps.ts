/**
 * One logical dump per database (SPEC: Backup archive): a file copy of a running database is not a
 * consistent snapshot, so a backup also streams `pg_dumpall` or `mariadb-dump` from inside the running
 * database container, and a restore loads it once the database answers, so the database holds exactly
 * what the dump holds whatever state the copy of its data folder was in. Credentials come from the
 * stack's compose file and `.env` and travel only in the exec environment; dumps are never held in memory.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { TemplateFileT } from '../../shared/template.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { Engine } from '../engine/engine.ts';
import type { StackMetaT } from '../stacks/store/stack-files.ts';
import { environmentOf, findDatabaseServices } from '../stacks/use-cases/db-password.ts';
import {
  allowConnections,
  credentialsOf,
  type DatabaseKind,
  type DatabaseSpec,
  dumpCommand,
  loadCommand,
  ownRoleLinesDropped,
  readyProbe,
  shutOutOthers,
  type ToolRun,
  toolReason,
} from './dump-tools.ts';

export type { DatabaseKind, DatabaseSpec } from './dump-tools.ts';

type DumpEngine = Pick<Engine, 'exec' | 'execStream'>;

/** A database to dump in a running container, and the name of its file under `dumps/`. */
export interface PlannedDump {
  spec: DatabaseSpec;
  containerId: string;
  name: string;
}

export interface DumpPlan {
  dumps: PlannedDump[];
  /** Databases whose container does not run: the caller warns in the job log. */
  skipped: { service: string; reason: 'stopped' }[];
}

/**
 * The databases of a stack: the template's `backup.databases` when it declares them (an adopted app's
 * compose file is its own, so a template does not speak for it), else every service that runs a
 * PostgreSQL or MariaDB/MySQL server (db-password.ts), with credentials resolved through `.env`.
 */
export function findDatabases(
  doc: unknown,
  env: Readonly<Record<string, string>>,
  meta?: Pick<StackMetaT, 'adopted'> | null,
  template?: Pick<TemplateFileT, 'backup'> | null,
): DatabaseSpec[] {
  const declared = meta?.adopted ? undefined : template?.backup?.databases;
  if (!declared) {
    return findDatabaseServices(doc).map((s) => credentialsOf(s.service, s.kind === 'postgres' ? 'postgres' : 'mariadb', s.env, env));
  }
  const found = (doc as { services?: unknown } | null)?.services;
  const services = (found && typeof found === 'object' && !Array.isArray(found) ? found : {}) as Record<string, unknown>;
  return declared.filter((d) => Object.hasOwn(services, d.service)).map((d) => credentialsOf(d.service, d.kind, environmentOf(services[d.service]), env, d));
}

/** The file name of a database's dump under `dumps/`. */
export const dumpName = (spec: Pick<DatabaseSpec, 'service'>): string => `${spec.service}.sql`;

/** Pairs each database with the running container of its service (`running`: service → container id). */
export function planDumps(specs: DatabaseSpec[], running: Readonly<Record<string, string>>): DumpPlan {
  const plan: DumpPlan = { dumps: [], skipped: [] };
  for (const spec of specs) {
    const containerId = Object.hasOwn(running, spec.service) ? running[spec.service] : undefined;
    if (containerId) plan.dumps.push({ spec, containerId, name: dumpName(spec) });
    else plan.skipped.push({ service: spec.service, reason: 'stopped' });
  }
  return plan;
}

const KIND_NAME: Record<DatabaseKind, string> = { postgres: 'PostgreSQL', mariadb: 'MariaDB/MySQL' };

function dumpFailed(spec: DatabaseSpec, why: string): AppError {
  return new AppError('db_dump_failed', `could not dump the ${KIND_NAME[spec.kind]} database of service '${spec.service}': ${why}`, {
    params: { service: spec.service, kind: spec.kind },
  });
}

function loadFailed(spec: DatabaseSpec, why: string): AppError {
  return new AppError('db_load_failed', `could not load the dump into the ${KIND_NAME[spec.kind]} database of service '${spec.service}': ${why}`, {
    params: { service: spec.service, kind: spec.kind },
  });
}

/** An engine failure keeps its words (they name containers, never a secret); anything else is masked. */
function reasonOf(err: unknown, spec: DatabaseSpec): string {
  return err instanceof AppError ? err.message : toolReason(errorMessage(err), [spec.password]);
}

/**
 * Streams a dump of the whole database server: roles and every database, with the statements that drop
 * them first. `stream` ends only after the tool exited 0; a failure (a non-zero exit names the service
 * and the tool's first error line, passwords masked) makes `stream` emit the error and `done` reject.
 * Destroying `stream` stops reading from the container.
 */
export async function dumpDatabase(
  engine: DumpEngine,
  containerId: string,
  spec: DatabaseSpec,
): Promise<{ stream: NodeJS.ReadableStream; done: Promise<void> }> {
  let started: Awaited<ReturnType<DumpEngine['execStream']>>;
  try {
    started = await engine.execStream(containerId, await dumpCommand(engine, containerId, spec));
  } catch (err) {
    throw dumpFailed(spec, reasonOf(err, spec));
  }
  const source = started.stdout as Readable;
  const stream = new PassThrough();
  let settled = false;
  const done = new Promise<void>((resolve, reject) => {
    const fail = (err: AppError) => {
      settled = true;
      stream.destroy(err);
      reject(err);
    };
    source.on('error', (err) => fail(dumpFailed(spec, reasonOf(err, spec))));
    source.on('end', () => {
      started.done.then(
        (r) => {
          if (r.exitCode !== 0) return fail(dumpFailed(spec, `exit code ${r.exitCode}: ${toolReason(r.stderr, [spec.password])}`));
          settled = true;
          stream.end();
          resolve();
        },
        (err: unknown) => fail(dumpFailed(spec, reasonOf(err, spec))),
      );
    });
  });
  done.catch(() => {});
  source.pipe(stream, { end: false });
  stream.on('close', () => {
    if (!settled) source.destroy();
  });
  return { stream, done };
}

/** Runs a command with `input` on its standard input, its output thrown away; resolves to its exit. */
async function feed(engine: DumpEngine, containerId: string, run: ToolRun, input: NodeJS.ReadableStream) {
  const started = await engine.execStream(containerId, { ...run, stdin: input });
  const out = started.stdout as Readable;
  const ended = new Promise<void>((resolve, reject) => {
    out.on('error', reject);
    out.on('end', resolve);
  });
  out.resume();
  const [r] = await Promise.all([started.done, ended]);
  return r;
}

/**
 * Loads a dump made by dumpDatabase into the running database: `psql -v ON_ERROR_STOP=1` or the
 * MariaDB client, reading the stream. PostgreSQL databases are closed to other sessions first (the
 * dump drops and recreates them; an app still connected would block that), and opened again when the
 * load fails; a successful load leaves them as the dump made them. Throws `db_load_failed`; the stream
 * is read to its end, or destroyed when the load fails.
 */
export async function loadDump(engine: DumpEngine, containerId: string, spec: DatabaseSpec, stream: NodeJS.ReadableStream): Promise<void> {
  let closed: string[] = [];
  try {
    if (spec.kind === 'postgres') closed = await shutOutOthers(engine, containerId, spec);
    const run = await loadCommand(engine, containerId, spec);
    const input = spec.kind === 'postgres' ? stream.pipe(ownRoleLinesDropped(spec.user)) : stream;
    stream.on('error', (err) => (input as Readable).destroy(err));
    const r = await feed(engine, containerId, run, input);
    if (r.exitCode !== 0) throw loadFailed(spec, `exit code ${r.exitCode}: ${toolReason(r.stderr, [spec.password])}`);
  } catch (err) {
    // A load cut short leaves the rest of the dump unread; its file is closed here.
    (stream as Readable).destroy?.();
    if (closed.length > 0) await allowConnections(engine, containerId, spec, closed).catch(() => undefined);
    if (err instanceof AppError && err.code === 'db_load_failed') throw err;
    throw loadFailed(spec, reasonOf(err, spec));
  }
}

/**
 * Waits until the database answers two consecutive `SELECT 1` (SPEC Limits) over TCP with the stack's
 * password, as the apps reach it: the images' first-start setup runs a temporary server without
 * networking, which must not count. Throws `db_load_failed` with the last refusal after `timeoutMs`.
 */
export async function waitUntilAnswers(
  engine: DumpEngine,
  containerId: string,
  spec: DatabaseSpec,
  opts: { timeoutMs: number; intervalMs?: number },
): Promise<void> {
  await answers(engine, containerId, spec, { ...opts, streak: 2, fail: (why) => loadFailed(spec, why) });
}

/**
 * Gives a database that is about to be backed up up to `timeoutMs` to answer once: one started a moment ago (an
 * app backed up right after its install) may not listen yet, or still run its first-start setup, and neither its
 * files nor a dump are worth keeping before it does. Never throws:
 * past the deadline the dump goes ahead and its own failure, if any, says why (a server that takes no network
 * connections by design never answers the probe).
 */
export async function waitUntilDumpable(
  engine: DumpEngine,
  containerId: string,
  spec: DatabaseSpec,
  opts: { timeoutMs: number; intervalMs?: number },
): Promise<void> {
  await answers(engine, containerId, spec, { ...opts, streak: 1, fail: (why) => dumpFailed(spec, why) }).catch(() => undefined);
}

async function answers(
  engine: DumpEngine,
  containerId: string,
  spec: DatabaseSpec,
  opts: { timeoutMs: number; intervalMs?: number; streak: number; fail: (why: string) => AppError },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let streak = 0;
  let last = 'no answer yet';
  let probe: ToolRun | null = null;
  for (;;) {
    try {
      probe ??= await readyProbe(engine, containerId, spec);
      const r = await engine.exec(containerId, { ...probe, timeoutMs: 15_000 });
      if (r.exitCode === 0 && r.stdout.trim() === '1') streak += 1;
      else {
        streak = 0;
        last = r.exitCode === 0 ? 'the server does not accept network connections yet' : toolReason(r.stderr, [spec.password]);
      }
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') throw opts.fail(err.message);
      streak = 0;
      last = reasonOf(err, spec);
    }
    if (streak >= opts.streak) return;
    if (Date.now() >= deadline) throw opts.fail(`the database did not answer within ${Math.round(opts.timeoutMs / 1000)} s: ${last}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000));
  }
}
