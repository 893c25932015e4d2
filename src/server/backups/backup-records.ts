/**
 * The backups as BACKUP_DIR holds them (the files are the truth): an archive per backup and its metadata beside it,
 * mapped from and to a backup id, read as records, annotated, removed.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { BackupT } from '../../shared/backups.ts';
import { BACKUP_ID } from '../../shared/backups.ts';
import { notFound } from '../core/errors.ts';
import { writeFileAtomic } from '../core/fs-atomic.ts';
import type { Compression } from './archive.ts';
import type { BackupsDeps } from './backups.service.ts';

/** The archive's file name ending per compression; its metadata is the same name with `.json` added. */
export const ARCHIVE_EXT: Record<Compression, string> = { gzip: '.tar.gz', zstd: '.tar.zst' };
/** What a download is sent as. */
export const ARCHIVE_TYPE: Record<Compression, string> = { gzip: 'application/gzip', zstd: 'application/zstd' };
const KINDS = Object.keys(ARCHIVE_EXT) as Compression[];

/** A backup's files: the archive of its kind and the metadata beside it. */
export interface BackupFiles {
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

/** What the parts of the backups service share: its dependencies, BACKUP_DIR and the map of its files. */
export interface BackupsCore {
  d: BackupsDeps;
  dir: string;
  files: ReturnType<typeof backupFiles>;
}

/** The files of a backup that exists (get() has answered 404 for any other id). */
export function filesOf(s: BackupsCore, id: string): BackupFiles {
  const f = s.files.find(id);
  if (!f) throw notFound('backup', id);
  return f;
}

/** A backup as its metadata file says, or null when there is none or it cannot be read. */
export function readRecord(s: BackupsCore, id: string): BackupT | null {
  const f = s.files.find(id);
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
export function annotate(s: BackupsCore, id: string, fields: Record<string, unknown>): void {
  const { meta } = filesOf(s, id);
  const m = JSON.parse(readFileSync(meta, 'utf8')) as Record<string, unknown>;
  writeFileAtomic(meta, `${JSON.stringify({ ...m, ...fields }, null, 2)}\n`, 0o600);
}

/** Every backup in BACKUP_DIR (of one app), newest first. */
export function records(s: BackupsCore, stack?: string): BackupT[] {
  let names: string[];
  try {
    names = readdirSync(s.dir);
  } catch {
    return [];
  }
  const ids = new Set(names.map(s.files.idOf).filter((id): id is string => id !== null && BACKUP_ID.test(id)));
  return [...ids]
    .map((id) => readRecord(s, id))
    .filter((b): b is BackupT => b !== null && (!stack || b.stack === stack))
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1));
}

/** A backup whose archive is there; 404 for any other id. */
export function get(s: BackupsCore, id: string): BackupT {
  if (!BACKUP_ID.test(id)) throw notFound('backup', id);
  const b = readRecord(s, id);
  if (!b || !existsSync(filesOf(s, id).archive)) throw notFound('backup', id);
  return b;
}

/** Archive and metadata of a backup, of whichever kind it is. */
export function removeFiles(s: BackupsCore, id: string): void {
  const f = s.files.find(id);
  if (!f) return;
  rmSync(f.archive, { force: true });
  rmSync(f.meta, { force: true });
}
