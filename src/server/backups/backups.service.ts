/**
 * Backups (SPEC: Backup archive; flows backup, restore): one archive per backup holding the app's folder,
 * its data folder and a dump per database; listed from BACKUP_DIR (the files are the truth), verified,
 * downloaded, deleted, restored with the old state put back on any failure, copied offsite, pruned.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statfsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { JobT } from '../../shared/api.ts';
import type { BackupT, DiskStateT } from '../../shared/backups.ts';
import { BACKUP_ID } from '../../shared/backups.ts';
import { requireRole } from '../core/authorize.ts';
import { bytesBelow } from '../core/disk.ts';
import { AppError, errorMessage, notFound } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import { writeFileAtomic } from '../core/fs-atomic.ts';
import type { ComposeProject } from '../engine/compose.ts';
import type { Engine } from '../engine/engine.ts';
import type { JobContext, JobsService } from '../jobs/jobs.service.ts';
import type { StackStore } from '../stacks/store/stack-store.ts';
import type { Compression } from './archive.ts';
import type { Branch } from './archive-format.ts';
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
  verify(path: string): Promise<{ ok: boolean; problems: string[] }>;
  /**
   * Validates every entry first (refusing hostile ones with nothing written), then extracts into a new folder: every
   * branch, or those of `only` (a change's failure loads just the dumps).
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

/** The archive's file name ending per compression; its metadata is the same name with `.json` added. */
export const ARCHIVE_EXT: Record<Compression, string> = { gzip: '.tar.gz', zstd: '.tar.zst' };
/** What a download is sent as. */
export const ARCHIVE_TYPE: Record<Compression, string> = { gzip: 'application/gzip', zstd: 'application/zstd' };
const KINDS = Object.keys(ARCHIVE_EXT) as Compression[];

/** A backup's files: the archive of its kind and the metadata beside it. */
interface BackupFiles {
  kind: Compression;
  archive: string;
  meta: string;
}

/**
 * The one place that maps a backup id to its files and back. Ids carry no extension; the files in BACKUP_DIR say
 * which kind a backup is, so gzip and zstd backups live side by side whatever BACKUP_COMPRESSION says now.
 */
export function backupFiles(dir: string) {
  const of = (id: string, kind: Compression): BackupFiles => ({
    kind,
    archive: join(dir, `${id}${ARCHIVE_EXT[kind]}`),
    meta: join(dir, `${id}${ARCHIVE_EXT[kind]}.json`),
  });
  return {
    of,
    /** The files of an existing backup (its metadata, else its archive, is there), or null. */
    find(id: string): BackupFiles | null {
      const all = KINDS.map((kind) => of(id, kind));
      return all.find((f) => existsSync(f.meta)) ?? all.find((f) => existsSync(f.archive)) ?? null;
    },
    /** The id a metadata file's name belongs to, or null for any other file. */
    idOf(name: string): string | null {
      const kind = KINDS.find((k) => name.endsWith(`${ARCHIVE_EXT[k]}.json`));
      return kind ? name.slice(0, -`${ARCHIVE_EXT[kind]}.json`.length) : null;
    },
  };
}

const GB = 1024 ** 3;
const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

export function createBackupsService(d: BackupsDeps) {
  const dir = d.settings.backupDir;
  const files = backupFiles(dir);
  /** The files of a backup that exists (get() has answered 404 for any other id). */
  const filesOf = (id: string): BackupFiles => {
    const f = files.find(id);
    if (!f) throw notFound('backup', id);
    return f;
  };

  function readRecord(id: string): BackupT | null {
    const f = files.find(id);
    if (!f) return null;
    try {
      const m = JSON.parse(readFileSync(f.meta, 'utf8')) as Record<string, unknown>;
      const size = existsSync(f.archive) ? lstatSync(f.archive).size : 0;
      const meta = (m.meta ?? m) as Record<string, unknown>;
      return {
        id,
        stack: String(meta.stack ?? ''),
        created_at: String(meta.created_at ?? m.created_at ?? ''),
        file: basename(f.archive),
        size,
        verified: typeof m.verified === 'boolean' ? m.verified : null,
        verified_at: typeof m.verified_at === 'string' ? m.verified_at : null,
        skipped: Array.isArray(m.skipped) ? (m.skipped as { path: string; reason: string }[]) : [],
        databases: Array.isArray(meta.databases) ? (meta.databases as { service: string; kind: string }[]) : [],
        reason: String(meta.reason ?? 'manual'),
        appdata: meta.appdata !== false,
        offsite: typeof m.offsite === 'string' ? m.offsite : null,
      };
    } catch {
      return null;
    }
  }

  /** Updates fields of the metadata file beside an archive (verification, offsite copy). */
  function annotate(id: string, fields: Record<string, unknown>): void {
    const { meta } = filesOf(id);
    const m = JSON.parse(readFileSync(meta, 'utf8')) as Record<string, unknown>;
    writeFileAtomic(meta, `${JSON.stringify({ ...m, ...fields }, null, 2)}\n`, 0o600);
  }

  function list(actor: Actor, stack?: string): BackupT[] {
    requireRole(actor, 'viewer', 'the backups');
    return records(stack);
  }

  /** Every backup in BACKUP_DIR (of one app), newest first. */
  function records(stack?: string): BackupT[] {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
    const ids = new Set(names.map(files.idOf).filter((id): id is string => id !== null && BACKUP_ID.test(id)));
    return [...ids]
      .map(readRecord)
      .filter((b): b is BackupT => b !== null && (!stack || b.stack === stack))
      .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1));
  }

  function get(id: string): BackupT {
    if (!BACKUP_ID.test(id)) throw notFound('backup', id);
    const b = readRecord(id);
    if (!b || !existsSync(filesOf(id).archive)) throw notFound('backup', id);
    return b;
  }

  function disk(): DiskStateT {
    mkdirSync(dir, { recursive: true });
    const s = statfsSync(dir);
    const total = s.blocks * s.bsize;
    const free = s.bavail * s.bsize;
    return {
      path: dir,
      total,
      free,
      used_pct: total > 0 ? Math.round(((total - free) / total) * 1000) / 10 : 0,
      warn_pct: d.settings.warnPct(),
      min_free_gb: d.settings.minFreeGb(),
    };
  }

  /** SPEC Limits: refused before writing when the backup would leave less than DISK_MIN_FREE_GB free. */
  function checkSpace(stack: string, stackDir: string): void {
    const appdata = d.settings.appdata() ? bytesBelow(join(d.settings.dataDir, stack)) : 0;
    const needed = bytesBelow(stackDir) + appdata;
    const state = disk();
    const keep = d.settings.minFreeGb() * GB;
    if (state.free - needed < keep) {
      const gb = (n: number) => `${(n / GB).toFixed(2)} GB`;
      throw new AppError(
        'disk_full',
        `not enough disk space for a backup of '${stack}': it needs up to ${gb(needed)}, ${gb(state.free)} is free in ${dir} and ${gb(keep)} must stay free (DISK_MIN_FREE_GB)`,
        { params: { stack, needed, free: state.free, min_free: keep } },
      );
    }
  }

  function newId(stack: string): string {
    // Free in every kind: an id names one backup, whichever compression it has.
    const base = `${stack}-${stamp(d.clock())}`;
    if (!files.find(base)) return base;
    for (let n = 2; n < 1000; n++) {
      const id = `${base}-${n}`;
      if (!files.find(id)) return id;
    }
    throw new AppError('conflict', `too many backups of '${stack}' in one second`, { params: { stack } });
  }

  /**
   * The backup itself, inside a job that holds the app's slot (its own, or an update's or delete's that backs up
   * first). A stopped database is a warning; unreadable files are listed and the rest continues.
   */
  async function run(stack: string, reason: string, ctx: JobContext): Promise<BackupT> {
    const loc = d.stacks.locate(stack);
    checkSpace(stack, loc.dir);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const id = newId(stack);
    // Read at each backup: a saved change applies to the next one.
    const compression = d.settings.compression();
    const target = files.of(id, compression);
    const dbs = await d.stacks.databases(stack);
    const dumps: { name: string; stream: () => Promise<NodeJS.ReadableStream> }[] = [];
    const dumped: { service: string; kind: string }[] = [];
    const pending: Promise<void>[] = [];
    for (const db of dbs) {
      if (!db.containerId) {
        ctx.log(`warning: the ${db.kind} database of service '${db.service}' is stopped, so it was not dumped; its files are in the app data only`);
        continue;
      }
      dumped.push({ service: db.service, kind: db.kind });
      dumps.push({
        name: `${db.service}.sql`,
        stream: async () => {
          const { stream, done } = await db.dump();
          pending.push(done);
          return stream;
        },
      });
    }
    const appdataDir = d.settings.appdata() && !loc.adopted ? join(d.settings.dataDir, stack) : null;
    const meta = { stack, id, created_at: d.clock().toISOString(), reason, appdata: appdataDir !== null, databases: dumped, adopted: loc.adopted };
    ctx.log(
      `backing up '${stack}' to ${target.archive}${appdataDir ? ' with its app data' : ''}${dumped.length ? `, dumping ${dumped.map((x) => x.service).join(', ')}` : ''}`,
    );
    const written = await d.archive.write({
      dest: target.archive,
      stackDir: loc.dir,
      appdataDir: appdataDir && existsSync(appdataDir) ? appdataDir : null,
      dumps,
      meta,
      compression,
      onSkip: (path, why) => ctx.log(`skipped ${path}: ${why}`),
    });
    await Promise.all(pending);
    ctx.progress(0.7);
    const check = await d.archive.verify(target.archive);
    annotate(id, { verified: check.ok, verified_at: d.clock().toISOString() });
    ctx.log(check.ok ? 'the archive was read back and every entry matches its checksum' : `verification failed: ${check.problems.join('; ')}`);
    // Asks for the archive_unreadable message (a scheduled round's are sent as one for the round).
    if (!check.ok)
      d.events.emit({ type: 'backup.verified', actor: null, source: 'backups', target: stack, status: 'failed', detail: { id, job: ctx.id, reason } });
    if (written.skipped.length > 0) ctx.log(`${written.skipped.length} file(s) could not be read and are listed in the backup`);
    await copyOffsite(id, ctx);
    prune(stack, ctx);
    return get(id);
  }

  async function copyOffsite(id: string, ctx: JobContext): Promise<void> {
    const target = d.settings.offsiteDir().trim();
    if (!target) return;
    try {
      const f = filesOf(id);
      mkdirSync(target, { recursive: true });
      const size = lstatSync(f.archive).size + lstatSync(f.meta).size;
      const s = statfsSync(target);
      if (s.bavail * s.bsize < size) throw new Error(`${target} has ${s.bavail * s.bsize} bytes free and the backup needs ${size}`);
      for (const p of [f.archive, f.meta]) {
        const tmp = join(target, `.${basename(p)}.${randomBytes(4).toString('hex')}.tmp`);
        await copyFile(p, tmp);
        renameSync(tmp, join(target, basename(p)));
      }
      annotate(id, { offsite: join(target, basename(f.archive)) });
      ctx.log(`copied to ${target}`);
    } catch (err) {
      annotate(id, { offsite: `not copied: ${errorMessage(err)}` });
      ctx.log(`warning: the offsite copy to ${target} failed: ${errorMessage(err)}`);
    }
  }

  /** Retention by count and age per app; the newest backup of an app always stays. */
  function prune(stack: string, ctx: JobContext | null): string[] {
    const { count, days } = d.settings.retention();
    const mine = records(stack);
    const now = d.clock().getTime();
    const gone: string[] = [];
    mine.forEach((b, i) => {
      if (i === 0) return;
      const tooMany = count > 0 && i >= count;
      const tooOld = days > 0 && now - Date.parse(b.created_at) > days * 86_400_000;
      if (!tooMany && !tooOld) return;
      removeFiles(b.id);
      gone.push(b.id);
      ctx?.log(`removed ${b.id} (retention: ${tooMany ? `more than ${count} kept` : `older than ${days} days`})`);
    });
    return gone;
  }

  /** A backup job; `made` hears of the backup once written (a scheduled round collects the unreadable ones). */
  function create(actor: Actor, stack: string, reason = 'manual', made?: (b: BackupT) => void): JobT {
    requireRole(actor, 'operator', 'backing up');
    const loc = d.stacks.locate(stack);
    // Refused before the job and before writing anything (507 naming the sizes).
    checkSpace(stack, loc.dir);
    return d.jobs.start({ kind: 'backup.create', stack, actor }, async (ctx) => {
      try {
        const b = await run(stack, reason, ctx);
        d.events.emit({ type: 'backup.created', actor, source: 'backups', target: stack, status: 'ok', detail: { id: b.id, reason } });
        made?.(b);
      } catch (err) {
        d.events.emit({
          type: 'backup.failed',
          actor,
          source: 'backups',
          target: stack,
          status: 'failed',
          detail: { reason, error: errorMessage(err), job: ctx.id },
        });
        throw err;
      }
    });
  }

  /** A backup first (before update or delete): a failure is a warning and the action goes on. */
  async function backupFirst(stack: string, reason: string, ctx: JobContext, actor: Actor | null): Promise<void> {
    try {
      const b = await run(stack, reason, ctx);
      d.events.emit({ type: 'backup.created', actor, source: 'backups', target: stack, status: 'ok', detail: { id: b.id, reason } });
    } catch (err) {
      ctx.log(`warning: the backup before ${reason} failed (${errorMessage(err)}); going on without it`);
      d.events.emit({
        type: 'backup.failed',
        actor,
        source: 'backups',
        target: stack,
        status: 'failed',
        detail: { reason, error: errorMessage(err), job: ctx.id },
      });
    }
  }

  function verify(actor: Actor, id: string): JobT {
    requireRole(actor, 'operator', 'verifying a backup');
    const b = get(id);
    return d.jobs.start({ kind: 'backup.verify', stack: null, actor }, async (ctx) => {
      const r = await d.archive.verify(filesOf(id).archive);
      annotate(id, { verified: r.ok, verified_at: d.clock().toISOString() });
      d.events.emit({ type: 'backup.verified', actor, source: 'backups', target: b.stack, status: r.ok ? 'ok' : 'failed', detail: { id, job: ctx.id } });
      if (!r.ok) throw new AppError('validation', `backup ${id} failed verification: ${r.problems.join('; ')}`, { params: { id } });
      ctx.log(`backup ${id} verified: every entry matches its checksum`);
    });
  }

  function download(actor: Actor, id: string): { stream: NodeJS.ReadableStream; name: string; size: number; type: string } {
    // The archive holds `.env` with the app's secrets in clear: like the credentials view, admins only.
    requireRole(actor, 'admin', 'downloading a backup');
    const b = get(id);
    const f = filesOf(id);
    return { stream: createReadStream(f.archive), name: basename(f.archive), size: b.size, type: ARCHIVE_TYPE[f.kind] };
  }

  /** Archive and metadata of a backup, of whichever kind it is. */
  function removeFiles(id: string): void {
    const f = files.find(id);
    if (!f) return;
    rmSync(f.archive, { force: true });
    rmSync(f.meta, { force: true });
  }

  function remove(actor: Actor, id: string): void {
    requireRole(actor, 'operator', 'deleting a backup');
    const b = get(id);
    removeFiles(id);
    d.events.emit({ type: 'backup.deleted', actor, source: 'backups', target: b.stack, status: 'ok', detail: { id } });
  }

  const { restore, restoreResolver } = createRestore(d, { get, archiveOf: (id) => filesOf(id).archive, annotate });
  const { beforeChange, loadDumps } = createChangeBackup(d, { run, get, archiveOf: (id) => filesOf(id).archive });

  return {
    list,
    get,
    disk,
    create,
    backupFirst,
    beforeChange,
    loadDumps,
    verify,
    download,
    remove,
    restore,
    prune,
    run,
    resolvers: { 'backup.restore': restoreResolver },
  };
}

export type BackupsService = ReturnType<typeof createBackupsService>;
