/**
 * Reading a backup archive: one full pass judges every entry (names, types, bits, limits, checksums
 * against the manifest). Verification runs the pass on its own; extraction (archive-extract.ts) runs the
 * same pass and writes while it reads.
 */
import { createHash } from 'node:crypto';
import {
  type ArchiveLimits,
  type ArchiveProblem,
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

/** What one read pass found so far: the entries as read, their problems, the manifest. */
export interface Pass {
  problems: ArchiveProblem[];
  read: ReadEntry[];
  manifest: Manifest | null;
  manifestSeen: boolean;
  entries: number;
  bytes: number;
}

export const newPass = (): Pass => ({ problems: [], read: [], manifest: null, manifestSeen: false, entries: 0, bytes: 0 });

/**
 * Judges one entry as it is read. A file's bytes go through `file`, which returns their SHA-256: an
 * inspection only hashes them, an extraction also writes them. Returns the entry as read, or null for the
 * manifest and for an entry with a problem of its own (recorded in the pass).
 */
export async function judgeEntry(
  p: Pass,
  header: EntryHeader,
  data: AsyncIterable<Buffer>,
  file: (data: AsyncIterable<Buffer>, size: number) => Promise<string>,
): Promise<ReadEntry | null> {
  p.entries++;
  p.bytes += header.size;
  const name = entryPath(header);
  if (p.manifestSeen) p.problems.push({ entry: header.name, reason: 'an entry after the manifest' });
  const bad = headerProblem(header);
  if (bad) {
    p.problems.push({ entry: header.name, reason: bad });
    return null;
  }
  if (name === MANIFEST_NAME) {
    p.manifestSeen = true;
    if (header.size > MAX_MANIFEST_BYTES) p.problems.push({ entry: name, reason: `a manifest larger than ${MAX_MANIFEST_BYTES} bytes` });
    else p.manifest = await readManifest(data, p.problems);
    return null;
  }
  const type = header.type as ReadEntry['type'];
  const sha256 = type === 'file' ? await file(data, header.size) : null;
  const e: ReadEntry = { path: name, type, size: header.size, mode: header.mode, sha256 };
  if (type === 'symlink') e.target = header.linkname ?? '';
  p.read.push(e);
  return e;
}

/** What a pass does with the entries it judged: a file's bytes (returning their SHA-256) and the others. */
export interface PassHooks {
  file(header: EntryHeader, data: AsyncIterable<Buffer>, size: number, pass: Pass): Promise<string>;
  other?(entry: ReadEntry, header: EntryHeader, pass: Pass): Promise<void>;
}

/**
 * Reads the archive through `judgeEntry` and adds what only the whole pass shows (the tree's rules, the
 * manifest missing or disagreeing). A stop while reading (limits, a corrupt stream) is the last problem.
 */
export async function runPass(path: string, limits: ArchiveLimits, hooks: PassHooks): Promise<Pass> {
  const p = newPass();
  try {
    await readEntries(path, limits, async ({ header, data }) => {
      const e = await judgeEntry(p, header, data, (d, size) => hooks.file(header, d, size, p));
      if (e && e.type !== 'file') await hooks.other?.(e, header, p);
    });
  } catch (e) {
    if (!(e instanceof ArchiveStop)) throw e;
    p.problems.push({ entry: e.entry, reason: e.reason });
    return p;
  }
  p.problems.push(...treeProblems(p.read));
  if (!p.manifestSeen) p.problems.push({ entry: MANIFEST_NAME, reason: 'no manifest: a truncated archive, or not a Kade backup' });
  else if (p.manifest) p.problems.push(...manifestProblems(p.read, p.manifest));
  return p;
}

const hashOnly: PassHooks = { file: (_h, data, size) => (size === 0 ? Promise.resolve(EMPTY_SHA) : hashAll(data)) };

/** The full read pass: every problem that would stop a restore, and the manifest. */
export async function inspectArchive(path: string, limits: ArchiveLimits = DEFAULT_LIMITS): Promise<Inspection> {
  const p = await runPass(path, limits, hashOnly);
  const { problems } = p;
  return {
    ok: problems.length === 0,
    problems: problems.slice(0, MAX_LISTED),
    problemCount: problems.length,
    manifest: p.manifest,
    entries: p.entries,
    bytes: p.bytes,
  };
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
