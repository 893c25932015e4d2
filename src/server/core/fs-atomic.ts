import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AppError } from './errors.ts';

/** A full disk (or quota) is the user's to fix, not a crash: one `disk_full` error naming the file. */
function diskFull(err: unknown, path: string): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return err;
  return new AppError('disk_full', `disk full: there is no space left to write ${path}`, { params: { path }, cause: err });
}

/** Writes `content` to a new temp file beside `path` and syncs it; returns the temp file's path. */
function writeTemp(path: string, content: string | Buffer, mode: number): string {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  const data = typeof content === 'string' ? Buffer.from(content) : content;
  let fd: number;
  try {
    fd = openSync(tmp, 'wx', mode);
  } catch (e) {
    throw diskFull(e, path);
  }
  try {
    // writeSync may write less than asked: loop, so a short write never leaves a truncated file.
    for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
    closeSync(fd);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed: the fsync or the close itself failed
    }
    rmSync(tmp, { force: true });
    throw diskFull(e, path);
  }
  return tmp;
}

/** Writes a file so that readers see the old or the new content, never half: temp file, fsync, rename. */
export function writeFileAtomic(path: string, content: string | Buffer, mode = 0o644): void {
  renameSync(writeTemp(path, content, mode), path);
}

export interface AtomicFile {
  path: string;
  content: string | Buffer;
  mode: number;
}

/**
 * Writes several files so that none changes unless all could be written: every new content goes to a
 * temp file first (this is where a full disk fails, with the old files untouched), then the renames,
 * which need no space. `afterRename` runs after each rename (a fault test stops Kade there).
 */
export function writeFilesAtomic(files: AtomicFile[], opts: { afterRename?: (path: string) => void } = {}): void {
  const temps: string[] = [];
  try {
    for (const f of files) temps.push(writeTemp(f.path, f.content, f.mode));
  } catch (e) {
    for (const t of temps) rmSync(t, { force: true });
    throw e;
  }
  files.forEach((f, i) => {
    renameSync(temps[i] as string, f.path);
    opts.afterRename?.(f.path);
  });
}
