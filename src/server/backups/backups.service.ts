/**
 * Backups (SPEC: Backup archive; flows backup, restore): one archive per backup holding the app's folder,
 * its data folder and a dump per database; listed from BACKUP_DIR (the files are the truth), verified,
 * downloaded, deleted, restored with the old state put back on any failure, copied offsite, pruned.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import type { JobT } from '../../shared/api.ts';
import type { BackupT } from '../../shared/backups.ts';
import { requireRole } from '../core/authorize.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { ComposeProject } from '../engine/compose.ts';
import type { Engine } from '../engine/engine.ts';
import type { JobContext, JobsService } from '../jobs/jobs.service.ts';
import type { StackStore } from '../stacks/store/stack-store.ts';
import type { Compression } from './archive.ts';
import type { Branch } from './archive-format.ts';
import { ARCHIVE_TYPE, annotate, type BackupsCore, backupFiles, filesOf, get, records, removeFiles } from './backup-records.ts';
import { checkSpace, disk, prune, run } from './backup-run.ts';
import { createChangeBackup } from './change-backup.ts';
import { createRestore } from './restore.ts';

/** What the backups need of the apps (stacks/). */
export interface BackupStacks {
  /** The app's folder (a link's target for an adopted app), its compose project and whether Kade owns the folder. */
  locate(name: string): { dir: string; adopted: boolean; project: ComposeProject | null; libraryPath: string };
  /** The databases of the app: per service the running container (null when stopped) and what to dump. */
  databases(name: string): Promise<DatabaseTarget[]>;
  /** `compose up` through the stacks' gate (as `actor`) and wait until the containers run. */
  up(p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void>;
  /** `compose stop` through the gate; the engine stops the containers when the gate refuses the files. */
  stop(p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void>;
  /** `compose down` through the gate; the engine removes the containers when the gate refuses the files. */
  down(p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void>;
  /**
   * The swap of the app's folder (stacks/store/stack-store.ts): moved aside, the restored one moved in and sealed as
   * the restoring user's (judged before), put back with its seal on a failure or after a crash.
   */
  swap: StackStore['swap'];
  /**
   * Judges an app's compose text and `.env` text as `actor` installing them as `name` would be judged (compose and
   * bind policies; an admin's `confirm` of outside paths is audited); throws the refusal.
   */
  judge(actor: Actor, name: string, files: { compose: string; env: string }, confirm: readonly string[] | undefined): void;
}

export interface DatabaseTarget {
  service: string;
  kind: string;
  containerId: string | null;
  /**
   * Waits (a bounded time, never throws) until the running database answers once: awaited before the archive
   * reads the app's folders, so a database still in its first-start setup is not copied half made.
   */
  ready(): Promise<void>;
  /** A dump of the running database, streamed. */
  dump(): Promise<{ stream: NodeJS.ReadableStream; done: Promise<void> }>;
  /** Waits until the database answers twice, then loads a dump into it. */
  load(stream: NodeJS.ReadableStream): Promise<void>;
}

/** The archive format (archive.ts), behind the few calls the service makes. */
export interface ArchiveIO {
  write(opts: {
    dest: string;
    stackDir: string;
    appdataDir: string | null;
    dumps: { name: string; stream: () => Promise<NodeJS.ReadableStream> }[];
    meta: Record<string, unknown>;
    compression: Compression;
    onSkip: (path: string, reason: string) => void;
  }): Promise<{ skipped: { path: string; reason: string }[] }>;
  /**
   * Reads the archive and checks every entry against its manifest; `written`, the read-back right after a backup,
   * checks instead that the whole file reads back through its compressor's own checksum (the entries' checksums
   * were computed while writing them).
   */
  verify(path: string, how?: 'written'): Promise<{ ok: boolean; problems: string[] }>;
  /**
   * Extracts into a new folder in one pass that judges every entry as verify does (hostile ones refused, and what
   * was written removed): every branch, or those of `only` (a change's failure loads just the dumps).
   */
  extract(path: string, target: string, only?: readonly Branch[]): Promise<void>;
}

export interface BackupSettings {
  backupDir: string;
  dataDir: string;
  libraryDir: string;
  appdata(): boolean;
  /** BACKUP_COMPRESSION: how the next archive is compressed; archives of either kind stay readable. */
  compression(): Compression;
  minFreeGb(): number;
  warnPct(): number;
  offsiteDir(): string;
  retention(): { count: number; days: number };
}

export interface BackupsDeps {
  stacks: BackupStacks;
  archive: ArchiveIO;
  settings: BackupSettings;
  engine: Pick<Engine, 'listContainers'>;
  jobs: JobsService;
  events: EventBus;
  clock: () => Date;
}

function list(s: BackupsCore, actor: Actor, stack?: string): BackupT[] {
  requireRole(actor, 'viewer', 'the backups');
  return records(s, stack);
}

/** The backup.failed event of a backup that could not be made. */
function emitFailed(s: BackupsCore, actor: Actor | null, stack: string, reason: string, err: unknown, job: string): void {
  s.d.events.emit({ type: 'backup.failed', actor, source: 'backups', target: stack, status: 'failed', detail: { reason, error: errorMessage(err), job } });
}

/** A backup job; `made` hears of the backup once written (a scheduled round collects the unreadable ones). */
function create(s: BackupsCore, actor: Actor, stack: string, reason = 'manual', made?: (b: BackupT) => void): JobT {
  requireRole(actor, 'operator', 'backing up');
  const loc = s.d.stacks.locate(stack);
  // Refused before the job and before writing anything (507 naming the sizes).
  checkSpace(s, stack, loc.dir);
  return s.d.jobs.start({ kind: 'backup.create', stack, actor }, async (ctx) => {
    try {
      const b = await run(s, stack, reason, ctx);
      s.d.events.emit({ type: 'backup.created', actor, source: 'backups', target: stack, status: 'ok', detail: { id: b.id, reason } });
      made?.(b);
    } catch (err) {
      emitFailed(s, actor, stack, reason, err, ctx.id);
      throw err;
    }
  });
}

/** A backup first (before update or delete): a failure is a warning and the action goes on. */
async function backupFirst(s: BackupsCore, stack: string, reason: string, ctx: JobContext, actor: Actor | null): Promise<void> {
  try {
    const b = await run(s, stack, reason, ctx);
    s.d.events.emit({ type: 'backup.created', actor, source: 'backups', target: stack, status: 'ok', detail: { id: b.id, reason } });
  } catch (err) {
    ctx.log(`warning: the backup before ${reason} failed (${errorMessage(err)}); going on without it`);
    emitFailed(s, actor, stack, reason, err, ctx.id);
  }
}

function verify(s: BackupsCore, actor: Actor, id: string): JobT {
  requireRole(actor, 'operator', 'verifying a backup');
  const b = get(s, id);
  return s.d.jobs.start({ kind: 'backup.verify', stack: null, actor }, async (ctx) => {
    const r = await s.d.archive.verify(filesOf(s, id).archive);
    annotate(s, id, { verified: r.ok, verified_at: s.d.clock().toISOString() });
    s.d.events.emit({ type: 'backup.verified', actor, source: 'backups', target: b.stack, status: r.ok ? 'ok' : 'failed', detail: { id, job: ctx.id } });
    if (!r.ok) throw new AppError('validation', `backup ${id} failed verification: ${r.problems.join('; ')}`, { params: { id } });
    ctx.log(`backup ${id} verified: every entry matches its checksum`);
  });
}

function download(s: BackupsCore, actor: Actor, id: string): { stream: NodeJS.ReadableStream; name: string; size: number; type: string } {
  // The archive holds `.env` with the app's secrets in clear: like the credentials view, admins only.
  requireRole(actor, 'admin', 'downloading a backup');
  const b = get(s, id);
  const f = filesOf(s, id);
  return { stream: createReadStream(f.archive), name: basename(f.archive), size: b.size, type: ARCHIVE_TYPE[f.kind] };
}

function remove(s: BackupsCore, actor: Actor, id: string): void {
  requireRole(actor, 'operator', 'deleting a backup');
  const b = get(s, id);
  removeFiles(s, id);
  s.d.events.emit({ type: 'backup.deleted', actor, source: 'backups', target: b.stack, status: 'ok', detail: { id } });
}

export function createBackupsService(d: BackupsDeps) {
  const s: BackupsCore = { d, dir: d.settings.backupDir, files: backupFiles(d.settings.backupDir) };
  const archiveOf = (id: string) => filesOf(s, id).archive;
  const getOne = (id: string) => get(s, id);
  const { restore, restoreResolver } = createRestore(d, { get: getOne, archiveOf, annotate: (id, fields) => annotate(s, id, fields) });
  const runOne = (stack: string, reason: string, ctx: JobContext) => run(s, stack, reason, ctx);
  const { beforeChange, loadDumps } = createChangeBackup(d, { run: runOne, get: getOne, archiveOf });

  return {
    list: (actor: Actor, stack?: string) => list(s, actor, stack),
    get: getOne,
    disk: () => disk(s),
    create: (actor: Actor, stack: string, reason?: string, made?: (b: BackupT) => void) => create(s, actor, stack, reason, made),
    backupFirst: (stack: string, reason: string, ctx: JobContext, actor: Actor | null) => backupFirst(s, stack, reason, ctx, actor),
    beforeChange,
    loadDumps,
    verify: (actor: Actor, id: string) => verify(s, actor, id),
    download: (actor: Actor, id: string) => download(s, actor, id),
    remove: (actor: Actor, id: string) => remove(s, actor, id),
    restore,
    prune: (stack: string, ctx: JobContext | null) => prune(s, stack, ctx),
    run: runOne,
    resolvers: { 'backup.restore': restoreResolver },
  };
}

export type BackupsService = ReturnType<typeof createBackupsService>;
