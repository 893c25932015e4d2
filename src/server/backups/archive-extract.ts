/**
 * Extracting a backup archive in one pass: every entry is judged as in a verification (archive-read.ts)
 * while it is written into a private new folder, and the folder is handed over only when the whole pass
 * found nothing; otherwise it is removed again. Nothing is written outside it, and nothing through a link:
 * links are made only once the archive passed, and a name twice or a path below a file fails to be created
 * (the pass then names the problem).
 */

import { createHash } from 'node:crypto';
import { constants, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { chmod, lchown, lutimes, mkdir, open, symlink, utimes } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { freeFor } from '../core/disk.ts';
import { AppError } from '../core/errors.ts';
import { type ArchiveLimits, type ArchiveProblem, type Branch, DEFAULT_LIMITS, MANIFEST_NAME, type Manifest, type ReadEntry } from './archive-format.ts';
import { type Pass, runPass } from './archive-read.ts';
import type { EntryHeader } from './archive-stream.ts';

export interface BranchCount {
  files: number;
  folders: number;
  links: number;
  bytes: number;
}

export interface Extracted {
  target: string;
  manifest: Manifest;
  stack: BranchCount;
  /** Null when the archive has no app data branch. */
  appdata: BranchCount | null;
  dumps: string[];
  /** Whether owners and groups were set as recorded (false when this process may not change them). */
  ownersKept: boolean;
}

function refused(p: ArchiveProblem, count: number): AppError {
  const more = count > 1 ? ` (and ${count - 1} more problem${count > 2 ? 's' : ''})` : '';
  return new AppError('archive_refused', `archive refused: ${p.entry ? `${p.entry}: ` : ''}${p.reason}${more}; nothing of it was kept`, {
    params: { entry: p.entry, reason: p.reason, problems: count },
  });
}

/** The target must be a new folder, or an empty one that is not a link. */
function checkTarget(target: string): boolean {
  const st = lstatSync(target, { throwIfNoEntry: false });
  if (!st) return false;
  if (!st.isDirectory() || readdirSync(target).length > 0) {
    throw new AppError('conflict', `${target} must not exist yet or be an empty folder`, { params: { path: target } });
  }
  return true;
}

interface Pending {
  abs: string;
  type: 'file' | 'directory' | 'symlink';
  mode: number;
  uid: number;
  gid: number;
  mtime: Date;
  target?: string;
}

/** Links, owners, modes and times once everything is written (folders deepest first, so they stay writable until then). */
async function finish(items: Pending[]): Promise<boolean> {
  let owners = true;
  const me = { uid: process.geteuid?.() ?? 0, gid: process.getegid?.() ?? 0 };
  const ordered = [...items].sort((a, b) => (a.type === 'directory' ? 1 : 0) - (b.type === 'directory' ? 1 : 0) || b.abs.length - a.abs.length);
  for (const p of ordered) {
    if (p.type === 'symlink') await symlink(p.target ?? '', p.abs);
    if (owners && (p.uid !== me.uid || p.gid !== me.gid)) {
      try {
        await lchown(p.abs, p.uid, p.gid);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EPERM' && (e as NodeJS.ErrnoException).code !== 'EINVAL') throw e;
        owners = false;
      }
    }
    if (p.type !== 'symlink') await chmod(p.abs, p.mode & 0o1777);
    const at = p.mtime;
    if (p.type === 'symlink') await lutimes(p.abs, at, at);
    else await utimes(p.abs, at, at);
  }
  return owners;
}

const count = (): BranchCount => ({ files: 0, folders: 0, links: 0, bytes: 0 });

/** The bytes the entries of `only` need, refused when they exceed `free` (the rest of the archive is not written). */
function checkFits(manifest: Manifest, only: readonly Branch[], free: number): void {
  const bytes = manifest.entries.filter((e) => only.includes(e.path.split('/')[0] as Branch)).reduce((n, e) => n + e.size, 0);
  if (bytes > free)
    throw new AppError('disk_full', `not enough disk space to extract ${only.join(', ')} of the backup: ${bytes} bytes needed, ${free} free`, {
      params: { needed: bytes, free },
    });
}

/** The writing side of the pass: stops at the first failure to write, which the caller weighs against the pass's problems. */
interface Writer {
  target: string;
  only: readonly Branch[] | undefined;
  /** Bytes `only`'s branches may take (the free space); past it nothing more is written. */
  room: number;
  written: number;
  failed: unknown;
  /** Each written entry's modification time, by path. */
  mtimes: Map<string, Date>;
}

const wanted = (w: Writer, name: string) => !w.only || w.only.includes(name.split('/')[0] as Branch);

/** Writes a file entry's bytes (while the pass found nothing) and hashes them; a write failure only stops the writing. */
async function writeFile(w: Writer, header: EntryHeader, data: AsyncIterable<Buffer>, size: number, problems: number): Promise<string> {
  const hash = createHash('sha256');
  const name = header.name;
  let fh: Awaited<ReturnType<typeof open>> | null = null;
  if (problems === 0 && w.failed === undefined && wanted(w, name)) {
    w.written += size;
    if (w.written > w.room)
      w.failed = new AppError('disk_full', `not enough disk space to extract the backup into ${w.target}`, { params: { path: w.target } });
    else {
      const abs = join(w.target, ...name.split('/'));
      try {
        await mkdir(dirname(abs), { recursive: true, mode: 0o700 });
        fh = await open(abs, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
        w.mtimes.set(name, header.mtime);
      } catch (e) {
        w.failed = e;
      }
    }
  }
  try {
    for await (const c of data) {
      hash.update(c);
      if (!fh) continue;
      try {
        await fh.write(c);
      } catch (e) {
        w.failed = e;
        await fh.close();
        fh = null;
      }
    }
  } finally {
    await fh?.close();
  }
  return hash.digest('hex');
}

/** Creates a folder (while the pass found nothing); a link is only noted here, made once the archive passed. */
async function writeOther(w: Writer, e: ReadEntry, header: EntryHeader, problems: number): Promise<void> {
  if (problems > 0 || w.failed !== undefined || !wanted(w, e.path)) return;
  const abs = join(w.target, ...e.path.split('/'));
  try {
    await mkdir(e.type === 'directory' ? abs : dirname(abs), { recursive: true, mode: 0o700 });
    w.mtimes.set(e.path, header.mtime);
  } catch (err) {
    w.failed = err;
  }
}

/** What was written, as the manifest records it: the items to finish and the counts per branch. */
function tallied(w: Writer, p: Pass, manifest: Manifest, result: Extracted): Pending[] {
  const known = new Map(manifest.entries.map((e) => [e.path, e]));
  const pending: Pending[] = [];
  for (const e of p.read) {
    const m = known.get(e.path);
    const mtime = w.mtimes.get(e.path);
    if (!m || !mtime) continue;
    const [branch] = e.path.split('/');
    if (branch === 'appdata' && !result.appdata) result.appdata = count();
    const tally = branch === 'stack' ? result.stack : branch === 'appdata' ? result.appdata : null;
    const item: Pending = { abs: join(w.target, ...e.path.split('/')), type: m.type, mode: m.mode, uid: m.uid, gid: m.gid, mtime };
    if (m.type === 'symlink') item.target = m.target ?? '';
    if (tally) {
      if (m.type === 'directory') tally.folders++;
      else if (m.type === 'symlink') tally.links++;
      else {
        tally.files++;
        tally.bytes += m.size;
      }
    } else if (m.type === 'file') result.dumps.push(e.path.slice('dumps/'.length));
    pending.push(item);
  }
  return pending;
}

/**
 * Extracts into `targetDir` (created 0700; it must not exist or be empty) in one pass that judges the whole
 * archive as verification does; any problem refuses it with `archive_refused` naming the first entry and
 * reason, and what was written is removed. `maxBytes` is lowered to the free space of the target's file
 * system, so a restore never fills the disk. Links are made last, so no write ever goes through one. With
 * `only`, just those branches are written (the whole archive is still judged), and only their size must fit.
 */
export async function extractArchive(path: string, targetDir: string, limits: ArchiveLimits = DEFAULT_LIMITS, only?: readonly Branch[]): Promise<Extracted> {
  const target = resolve(targetDir);
  const existed = checkTarget(target);
  const space = freeFor(target);
  if (!only && space.free < limits.maxBytes) limits = { ...limits, maxBytes: space.free };
  // The first folder this made (the target or one above it) is the one a refusal removes.
  const made = existed ? undefined : mkdirSync(target, { recursive: true, mode: 0o700 });
  const w: Writer = { target, only, room: space.free, written: 0, failed: undefined, mtimes: new Map() };
  const clear = () => {
    if (made !== undefined) rmSync(made, { recursive: true, force: true });
    else for (const n of readdirSync(target)) rmSync(join(target, n), { recursive: true, force: true });
  };
  try {
    const p = await runPass(path, limits, {
      file: (header, data, size, pass) => writeFile(w, header, data, size, pass.problems.length),
      other: (e, header, pass) => writeOther(w, e, header, pass.problems.length),
    });
    const first = p.problems[0];
    if (first || !p.manifest) throw refused(first ?? { entry: MANIFEST_NAME, reason: 'no usable manifest' }, Math.max(1, p.problems.length));
    const manifest = p.manifest;
    if (only) checkFits(manifest, only, space.free);
    if (w.failed !== undefined) throw w.failed;
    const result: Extracted = { target, manifest, stack: count(), appdata: null, dumps: [], ownersKept: true };
    result.ownersKept = await finish(tallied(w, p, manifest, result));
    return result;
  } catch (e) {
    clear();
    throw e;
  }
}
