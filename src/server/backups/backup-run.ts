/**
 * Making a backup (SPEC: Backup archive; flows backup): the disk check, a name of its own, the archive with the app's
 * folder, its data folder and a dump per running database, the verification, the offsite copy and the retention.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, renameSync, statfsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { BackupT, DiskStateT } from '../../shared/backups.ts';
import { bytesBelow } from '../core/disk.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { JobContext } from '../jobs/jobs.service.ts';
import { annotate, type BackupsCore, filesOf, get, records, removeFiles } from './backup-records.ts';
import type { DatabaseTarget } from './backups.service.ts';

const GB = 1024 ** 3;
const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

/** The disk BACKUP_DIR is on: its size, what is free, and the settings that judge it. */
export function disk(s: BackupsCore): DiskStateT {
  mkdirSync(s.dir, { recursive: true });
  const st = statfsSync(s.dir);
  const total = st.blocks * st.bsize;
  const free = st.bavail * st.bsize;
  return {
    path: s.dir,
    total,
    free,
    used_pct: total > 0 ? Math.round(((total - free) / total) * 1000) / 10 : 0,
    warn_pct: s.d.settings.warnPct(),
    min_free_gb: s.d.settings.minFreeGb(),
  };
}

/** SPEC Limits: refused before writing when the backup would leave less than DISK_MIN_FREE_GB free. */
export function checkSpace(s: BackupsCore, stack: string, stackDir: string): void {
  const appdata = s.d.settings.appdata() ? bytesBelow(join(s.d.settings.dataDir, stack)) : 0;
  const needed = bytesBelow(stackDir) + appdata;
  const state = disk(s);
  const keep = s.d.settings.minFreeGb() * GB;
  if (state.free - needed < keep) {
    const gb = (n: number) => `${(n / GB).toFixed(2)} GB`;
    throw new AppError(
      'disk_full',
      `not enough disk space for a backup of '${stack}': it needs up to ${gb(needed)}, ${gb(state.free)} is free in ${s.dir} and ${gb(keep)} must stay free (DISK_MIN_FREE_GB)`,
      { params: { stack, needed, free: state.free, min_free: keep } },
    );
  }
}

function newId(s: BackupsCore, stack: string): string {
  // Free in every kind: an id names one backup, whichever compression it has.
  const base = `${stack}-${stamp(s.d.clock())}`;
  if (!s.files.find(base)) return base;
  for (let n = 2; n < 1000; n++) {
    const id = `${base}-${n}`;
    if (!s.files.find(id)) return id;
  }
  throw new AppError('conflict', `too many backups of '${stack}' in one second`, { params: { stack } });
}

/** The dumps of the running databases, streamed while the archive is written; a stopped one is a warning. */
function dumpsOf(dbs: DatabaseTarget[], ctx: JobContext) {
  const dumps: { name: string; stream: () => Promise<NodeJS.ReadableStream> }[] = [];
  const dumped: { service: string; kind: string }[] = [];
  /** Each dump's end, a failure included: awaited once the archive is written. */
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
  return { dumps, dumped, pending };
}

/** Reads the archive back; the result goes into its metadata, and a failure asks for the archive_unreadable message. */
async function verifyWritten(s: BackupsCore, stack: string, id: string, archive: string, reason: string, ctx: JobContext): Promise<void> {
  // Every entry's checksum was computed while it was written; what is left to prove is that the file holds it all.
  const check = await s.d.archive.verify(archive, 'written');
  annotate(s, id, { verified: check.ok, verified_at: s.d.clock().toISOString() });
  ctx.log(
    check.ok
      ? 'the archive was read back whole and matches its compressor’s checksum of every byte written'
      : `verification failed: ${check.problems.join('; ')}`,
  );
  // Asks for the archive_unreadable message (a scheduled round's are sent as one for the round).
  if (!check.ok)
    s.d.events.emit({ type: 'backup.verified', actor: null, source: 'backups', target: stack, status: 'failed', detail: { id, job: ctx.id, reason } });
}

/**
 * The backup itself, inside a job that holds the app's slot (its own, or an update's or delete's that backs up
 * first). A stopped database is a warning; unreadable files are listed and the rest continues.
 */
export async function run(s: BackupsCore, stack: string, reason: string, ctx: JobContext): Promise<BackupT> {
  const loc = s.d.stacks.locate(stack);
  checkSpace(s, stack, loc.dir);
  mkdirSync(s.dir, { recursive: true, mode: 0o700 });
  const id = newId(s, stack);
  // Read at each backup: a saved change applies to the next one.
  const compression = s.d.settings.compression();
  const target = s.files.of(id, compression);
  const dbs = await s.d.stacks.databases(stack);
  // Before any file is read: a database just started (a backup right after its install) may still run its
  // first-start setup, and a copy of its data folder made then would not start again after a restore.
  await Promise.all(dbs.filter((db) => db.containerId).map((db) => db.ready()));
  const { dumps, dumped, pending } = dumpsOf(dbs, ctx);
  const appdataDir = s.d.settings.appdata() && !loc.adopted ? join(s.d.settings.dataDir, stack) : null;
  const meta = { stack, id, created_at: s.d.clock().toISOString(), reason, appdata: appdataDir !== null, databases: dumped, adopted: loc.adopted };
  ctx.log(
    `backing up '${stack}' to ${target.archive}${appdataDir ? ' with its app data' : ''}${dumped.length ? `, dumping ${dumped.map((x) => x.service).join(', ')}` : ''}`,
  );
  const written = await s.d.archive.write({
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
  await verifyWritten(s, stack, id, target.archive, reason, ctx);
  if (written.skipped.length > 0) ctx.log(`${written.skipped.length} file(s) could not be read and are listed in the backup`);
  await copyOffsite(s, id, ctx);
  prune(s, stack, ctx);
  return get(s, id);
}

/** The copy of a new backup in BACKUP_OFFSITE_DIR; a failure is a warning, recorded in the backup's metadata. */
async function copyOffsite(s: BackupsCore, id: string, ctx: JobContext): Promise<void> {
  const target = s.d.settings.offsiteDir().trim();
  if (!target) return;
  try {
    const f = filesOf(s, id);
    mkdirSync(target, { recursive: true });
    const size = lstatSync(f.archive).size + lstatSync(f.meta).size;
    const st = statfsSync(target);
    if (st.bavail * st.bsize < size) throw new Error(`${target} has ${st.bavail * st.bsize} bytes free and the backup needs ${size}`);
    for (const p of [f.archive, f.meta]) {
      const tmp = join(target, `.${basename(p)}.${randomBytes(4).toString('hex')}.tmp`);
      await copyFile(p, tmp);
      renameSync(tmp, join(target, basename(p)));
    }
    annotate(s, id, { offsite: join(target, basename(f.archive)) });
    ctx.log(`copied to ${target}`);
  } catch (err) {
    annotate(s, id, { offsite: `not copied: ${errorMessage(err)}` });
    ctx.log(`warning: the offsite copy to ${target} failed: ${errorMessage(err)}`);
  }
}

/** Retention by count and age per app; the newest backup of an app always stays. */
export function prune(s: BackupsCore, stack: string, ctx: JobContext | null): string[] {
  const { count, days } = s.d.settings.retention();
  const mine = records(s, stack);
  const now = s.d.clock().getTime();
  const gone: string[] = [];
  mine.forEach((b, i) => {
    if (i === 0) return;
    const tooMany = count > 0 && i >= count;
    const tooOld = days > 0 && now - Date.parse(b.created_at) > days * 86_400_000;
    if (!tooMany && !tooOld) return;
    removeFiles(s, b.id);
    gone.push(b.id);
    ctx?.log(`removed ${b.id} (retention: ${tooMany ? `more than ${count} kept` : `older than ${days} days`})`);
  });
  return gone;
}
