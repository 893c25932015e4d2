/**
 * Reading a backup archive: one full pass judges every entry (names, types, bits, limits, checksums
 * against the manifest); extraction writes only after that pass found nothing, and checks each entry
 * again while writing it.
 */
import { createHash } from 'node:crypto';
import { constants, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { chmod, lchown, lutimes, mkdir, open, symlink, utimes } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { freeFor } from '../core/disk.ts';
import { AppError } from '../core/errors.ts';
import {
  type ArchiveLimits,
  type ArchiveProblem,
  type Branch,
  DEFAULT_LIMITS,
  headerProblem,
  MANIFEST_NAME,
  MAX_MANIFEST_BYTES,
  Manifest,
  manifestProblems,
  type ReadEntry,
  splitName,
  treeProblems,
} from './archive-format.ts';
import { ArchiveStop, type EntryHeader, readEntries } from './archive-stream.ts';

const MAX_LISTED = 100;
const EMPTY_SHA = createHash('sha256').digest('hex');

export interface Inspection {
  ok: boolean;
  /** What stops a restore, entry by entry (at most 100 listed; `problemCount` has them all). */
  problems: ArchiveProblem[];
  problemCount: number;
  manifest: Manifest | null;
  entries: number;
  /** Bytes of content the entries declare. */
  bytes: number;
}

const entryPath = (h: EntryHeader) => splitName(h.name).join('/');

async function hashAll(data: AsyncIterable<Buffer>): Promise<string> {
  const hash = createHash('sha256');
  for await (const c of data) hash.update(c);
  return hash.digest('hex');
}

async function readManifest(data: AsyncIterable<Buffer>, problems: ArchiveProblem[]): Promise<Manifest | null> {
  const parts: Buffer[] = [];
  for await (const c of data) parts.push(c);
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    problems.push({ entry: MANIFEST_NAME, reason: 'a manifest that is not JSON' });
    return null;
  }
  const parsed = Manifest.safeParse(json);
  if (parsed.success) return parsed.data;
  problems.push({ entry: MANIFEST_NAME, reason: 'a manifest that is not a Kade backup manifest of a known version' });
  return null;
}

/** The full read pass: every problem that would stop a restore, and the manifest. */
export async function inspectArchive(path: string, limits: ArchiveLimits = DEFAULT_LIMITS): Promise<Inspection> {
  const problems: ArchiveProblem[] = [];
  const read: ReadEntry[] = [];
  let manifest: Manifest | null = null;
  let manifestSeen = false;
  let stopped = false;
  let entries = 0;
  let bytes = 0;
  try {
    await readEntries(path, limits, async ({ header, data }) => {
      entries++;
      bytes += header.size;
      const name = entryPath(header);
      if (manifestSeen) problems.push({ entry: header.name, reason: 'an entry after the manifest' });
      const bad = headerProblem(header);
      if (bad) {
        problems.push({ entry: header.name, reason: bad });
        return;
      }
      if (name === MANIFEST_NAME) {
        manifestSeen = true;
        if (header.size > MAX_MANIFEST_BYTES) problems.push({ entry: name, reason: `a manifest larger than ${MAX_MANIFEST_BYTES} bytes` });
        else manifest = await readManifest(data, problems);
        return;
      }
      const type = header.type as ReadEntry['type'];
      const sha256 = type !== 'file' ? null : header.size === 0 ? EMPTY_SHA : await hashAll(data);
      const e: ReadEntry = { path: name, type, size: header.size, mode: header.mode, sha256 };
      if (type === 'symlink') e.target = header.linkname ?? '';
      read.push(e);
    });
  } catch (e) {
    if (!(e instanceof ArchiveStop)) throw e;
    problems.push({ entry: e.entry, reason: e.reason });
    stopped = true;
  }
  if (!stopped) {
    problems.push(...treeProblems(read));
    if (!manifestSeen) problems.push({ entry: MANIFEST_NAME, reason: 'no manifest: a truncated archive, or not a Kade backup' });
    else if (manifest) problems.push(...manifestProblems(read, manifest));
  }
  return { ok: problems.length === 0, problems: problems.slice(0, MAX_LISTED), problemCount: problems.length, manifest, entries, bytes };
}

/** Reads the whole archive and checks every entry against the manifest's checksums and sizes. */
export async function verifyArchive(
  path: string,
  limits: ArchiveLimits = DEFAULT_LIMITS,
): Promise<{ ok: boolean; problems: string[]; manifest: Manifest | null }> {
  const r = await inspectArchive(path, limits);
  const problems = r.problems.map((p) => (p.entry ? `${p.entry}: ${p.reason}` : p.reason));
  if (r.problemCount > r.problems.length) problems.push(`and ${r.problemCount - r.problems.length} more`);
  return { ok: r.ok, problems, manifest: r.manifest };
}

function refused(p: ArchiveProblem, count: number): AppError {
  const more = count > 1 ? ` (and ${count - 1} more problem${count > 2 ? 's' : ''})` : '';
  return new AppError('archive_refused', `archive refused: ${p.entry ? `${p.entry}: ` : ''}${p.reason}${more}; nothing was written`, {
    params: { entry: p.entry, reason: p.reason, problems: count },
  });
}

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

/** Owners, modes and times once everything is written (folders deepest first, so they stay writable until then). */
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

/** Refused when the entries of `only` would not fit in `free` bytes (the rest of the archive is not written). */
function checkFits(manifest: Manifest, only: readonly Branch[], free: number): void {
  const bytes = manifest.entries.filter((e) => only.includes(e.path.split('/')[0] as Branch)).reduce((n, e) => n + e.size, 0);
  if (bytes > free)
    throw new AppError('disk_full', `not enough disk space to extract ${only.join(', ')} of the backup: ${bytes} bytes needed, ${free} free`, {
      params: { needed: bytes, free },
    });
}

/**
 * Validates the whole archive first (inspectArchive) and refuses it with `archive_refused` naming the first
 * entry and reason, with nothing written; only then extracts into `targetDir` (created 0700; it must not
 * exist or be empty). `maxBytes` is lowered to the free space of the target's file system, so a restore
 * never fills the disk. Links are made last, so no write ever goes through one. On a failure while
 * writing, what was written is removed again. With `only`, just those branches are written (the whole
 * archive is still checked), and only their size must fit.
 */
export async function extractArchive(path: string, targetDir: string, limits: ArchiveLimits = DEFAULT_LIMITS, only?: readonly Branch[]): Promise<Extracted> {
  const target = resolve(targetDir);
  const existed = checkTarget(target);
  const space = freeFor(target);
  if (!only && space.free < limits.maxBytes) limits = { ...limits, maxBytes: space.free };
  const check = await inspectArchive(path, limits);
  const first = check.problems[0];
  if (first || !check.manifest) throw refused(first ?? { entry: MANIFEST_NAME, reason: 'no usable manifest' }, Math.max(1, check.problemCount));
  const manifest = check.manifest;
  if (only) checkFits(manifest, only, space.free);
  const known = new Map(manifest.entries.map((e) => [e.path, e]));
  if (!existed) mkdirSync(target, { recursive: true, mode: 0o700 });
  const result: Extracted = { target, manifest, stack: count(), appdata: null, dumps: [], ownersKept: true };
  const pending: Pending[] = [];
  try {
    await readEntries(path, limits, async ({ header, data }) => {
      const name = entryPath(header);
      const abs = join(target, ...name.split('/'));
      const m = known.get(name);
      const changed = () => new ArchiveStop(header.name, 'the archive changed after it was checked');
      if (name === MANIFEST_NAME) return;
      if (headerProblem(header) || !m || m.type !== header.type || m.size !== header.size || (m.target ?? null) !== (header.linkname || null)) throw changed();
      const [branch] = name.split('/');
      if (only && !only.includes(branch as Branch)) return;
      if (branch === 'appdata' && !result.appdata) result.appdata = count();
      const tally = branch === 'stack' ? result.stack : branch === 'appdata' ? result.appdata : null;
      const item: Pending = { abs, type: m.type, mode: m.mode, uid: m.uid, gid: m.gid, mtime: header.mtime };
      if (m.type === 'directory') {
        await mkdir(abs, { recursive: true, mode: 0o700 });
        if (tally) tally.folders++;
      } else if (m.type === 'symlink') {
        await mkdir(dirname(abs), { recursive: true, mode: 0o700 });
        item.target = m.target ?? '';
        if (tally) tally.links++;
      } else {
        await mkdir(dirname(abs), { recursive: true, mode: 0o700 });
        const fh = await open(abs, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
        const hash = createHash('sha256');
        try {
          for await (const c of data) {
            hash.update(c);
            await fh.write(c);
          }
        } finally {
          await fh.close();
        }
        if (hash.digest('hex') !== m.sha256) throw changed();
        if (tally) {
          tally.files++;
          tally.bytes += m.size;
        } else result.dumps.push(name.slice('dumps/'.length));
      }
      pending.push(item);
    });
    result.ownersKept = await finish(pending);
  } catch (e) {
    if (existed) for (const n of readdirSync(target)) rmSync(join(target, n), { recursive: true, force: true });
    else rmSync(target, { recursive: true, force: true });
    if (e instanceof ArchiveStop) throw refused({ entry: e.entry, reason: e.reason }, 1);
    throw e;
  }
  return result;
}
