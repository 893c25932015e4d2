/**
 * The backup archive's format as data: entry names, the manifest, the limits and the rules an entry must
 * keep to be restored. Pure functions only; reading and writing live in archive-read.ts and archive-write.ts.
 */
import { z } from 'zod';
import { AppError } from '../core/errors.ts';

/** The last entry of every archive, and (as `<archive>.json`) the file beside it. */
export const MANIFEST_NAME = 'kade-backup.json';
export const FORMAT = 'kade-backup';
export const FORMAT_VERSION = 1;
export const BRANCHES = ['stack', 'appdata', 'dumps'] as const;
export type Branch = (typeof BRANCHES)[number];

export type EntryType = 'file' | 'directory' | 'symlink';

export const ManifestEntry = z.object({
  path: z.string(),
  type: z.enum(['file', 'directory', 'symlink']),
  size: z.number().int().nonnegative(),
  mode: z.number().int().nonnegative(),
  uid: z.number().int().nonnegative(),
  gid: z.number().int().nonnegative(),
  /** Hex SHA-256 of a file's bytes; null for folders and links. */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  /** A link's target, as stored. */
  target: z.string().optional(),
});
export type ManifestEntry = z.infer<typeof ManifestEntry>;

export const Manifest = z.object({
  format: z.literal(FORMAT),
  version: z.literal(FORMAT_VERSION),
  created_at: z.string(),
  compression: z.enum(['gzip', 'zstd']),
  entries: z.array(ManifestEntry),
  /** What could not be backed up: unreadable files, sockets, FIFOs, devices, links that leave their branch. */
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  /** Paths whose setuid/setgid bits were dropped (a restore refuses them). */
  stripped: z.array(z.string()),
  /** The source folders' own owner and group ids, per branch. */
  owners: z.record(z.string(), z.object({ uid: z.number(), gid: z.number() })),
  /** The caller's metadata (stack, reason, databases, ...), kept as given. */
  meta: z.record(z.string(), z.unknown()),
});
export type Manifest = z.infer<typeof Manifest>;

export interface ArchiveLimits {
  /** Entries (files, folders, links) in one archive. */
  maxEntries: number;
  /** Bytes of content after decompression; the real bytes read are counted too, not only the declared sizes. */
  maxBytes: number;
}

export const DEFAULT_LIMITS: ArchiveLimits = { maxEntries: 200_000, maxBytes: 256 * 1024 ** 3 };
/** The manifest is the one entry read into memory. */
export const MAX_MANIFEST_BYTES = 128 * 1024 * 1024;
const MAX_PATH = 4096;

export interface ArchiveProblem {
  /** The entry's name as stored (or '' for the archive as a whole). */
  entry: string;
  reason: string;
}

/** The fields of a tar header the rules look at. */
export interface RawHeader {
  name: string;
  type: string | null | undefined;
  size: number;
  mode: number;
  linkname: string | null | undefined;
}

/** An entry name split into components, with the trailing slash of a folder removed. */
export function splitName(name: string): string[] {
  return (name.endsWith('/') ? name.slice(0, -1) : name).split('/');
}

const DEVICE_TYPES: Record<string, string> = {
  'character-device': 'a character device',
  'block-device': 'a block device',
  fifo: 'a FIFO',
};

/**
 * Why an entry cannot be restored, judged from its header alone (null when it may be): names that leave
 * the target, unknown branches, hard links, devices, FIFOs, setuid/setgid bits and absolute link targets.
 */
export function headerProblem(h: RawHeader): string | null {
  const { name } = h;
  if (name.length === 0) return 'an empty name';
  if (name.length > MAX_PATH) return `a name longer than ${MAX_PATH} characters`;
  if (name.includes('\0')) return 'a name with a NUL character';
  if (name.startsWith('/')) return 'an absolute path';
  if (name.endsWith('/') && h.type !== 'directory') return 'a name ending in / that is not a folder';
  const parts = splitName(name);
  if (parts.includes('..')) return 'a .. component';
  if (parts.some((p) => p === '' || p === '.')) return 'an empty or . component';
  if (h.type === 'link') return `a hard link (to ${h.linkname ?? ''})`;
  if (h.type && DEVICE_TYPES[h.type]) return DEVICE_TYPES[h.type] as string;
  if (h.type !== 'file' && h.type !== 'directory' && h.type !== 'symlink') return `an unsupported entry type (${h.type ?? 'unknown'})`;
  if ((h.mode & 0o6000) !== 0) return `a setuid or setgid bit (mode ${(h.mode & 0o7777).toString(8)})`;
  if (h.type !== 'file' && h.size > 0) return 'a folder or link entry that carries data';
  if (name === MANIFEST_NAME) return h.type === 'file' ? null : 'a manifest that is not a file';
  const branch = parts[0] as string;
  if (!(BRANCHES as readonly string[]).includes(branch)) return `a path outside the branches ${BRANCHES.join(', ')}`;
  if (branch === 'dumps' && (parts.length > 2 || (parts.length === 2 && h.type !== 'file'))) return 'a dump that is not a plain file in dumps/';
  if (h.type === 'symlink') {
    const target = h.linkname ?? '';
    if (target === '') return 'a link without a target';
    if (target.startsWith('/')) return `a link to the absolute path ${target}`;
    if (target.length > MAX_PATH || target.includes('\0')) return 'a link target that is too long or has a NUL character';
  }
  return null;
}

/**
 * Follows a link's target inside its branch the way the kernel would, expanding links met on the way
 * (`lookup` gives a link's target by its path below the branch, or null). Returns the components below the
 * branch root, or null when the walk leaves the branch at any step, meets an absolute target or loops.
 */
export function resolveInBranch(linkDir: string[], target: string, lookup: (rel: string) => string | null): string[] | null {
  const cur = [...linkDir];
  const todo = target.split('/');
  if (target.startsWith('/')) return null;
  let hops = 0;
  while (todo.length > 0) {
    const p = todo.shift() as string;
    if (p === '' || p === '.') continue;
    if (p === '..') {
      if (cur.length === 0) return null;
      cur.pop();
      continue;
    }
    cur.push(p);
    const next = lookup(cur.join('/'));
    if (next === null) continue;
    if (++hops > 40 || next.startsWith('/')) return null;
    cur.pop();
    todo.unshift(...next.split('/'));
  }
  return cur;
}

/** The branch of an entry path and its components below the branch root. */
export function inBranch(path: string): { branch: string; rest: string[] } {
  const parts = splitName(path);
  return { branch: parts[0] as string, rest: parts.slice(1) };
}

export interface SeenEntry {
  path: string;
  type: EntryType;
  target?: string;
}

/**
 * Rules over the whole tree once every entry is known: no name twice, nothing below a link or a file
 * (so extraction never writes through a link), and every link's target stays inside its branch even
 * when followed through other links.
 */
export function treeProblems(entries: SeenEntry[]): ArchiveProblem[] {
  const problems: ArchiveProblem[] = [];
  const kinds = new Map<string, EntryType>();
  const links = new Map<string, string>();
  for (const e of entries) {
    if (kinds.has(e.path)) problems.push({ entry: e.path, reason: 'a name that appears twice' });
    kinds.set(e.path, e.type);
    if (e.type === 'symlink') links.set(e.path, e.target ?? '');
  }
  for (const e of entries) {
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const above = kinds.get(parts.slice(0, i).join('/'));
      if (above !== undefined && above !== 'directory') {
        problems.push({ entry: e.path, reason: `a path below a ${above === 'symlink' ? 'link' : 'file'} (${parts.slice(0, i).join('/')})` });
        break;
      }
    }
    if (e.type !== 'symlink') continue;
    const { branch, rest } = inBranch(e.path);
    const lookup = (rel: string) => links.get(`${branch}/${rel}`) ?? null;
    if (resolveInBranch(rest.slice(0, -1), e.target ?? '', lookup) === null) {
      problems.push({ entry: e.path, reason: `a link whose target ${e.target ?? ''} leaves its branch ${branch}/ or loops` });
    }
  }
  return problems;
}

/** What the archive holds, entry by entry, as read. */
export interface ReadEntry {
  path: string;
  type: EntryType;
  size: number;
  mode: number;
  sha256: string | null;
  target?: string;
}

/** Every difference between what was read and what the manifest records. */
export function manifestProblems(read: ReadEntry[], manifest: Manifest): ArchiveProblem[] {
  const problems: ArchiveProblem[] = [];
  const listed = new Map(manifest.entries.map((e) => [e.path, e]));
  const seen = new Set<string>();
  for (const r of read) {
    seen.add(r.path);
    const m = listed.get(r.path);
    if (!m) {
      problems.push({ entry: r.path, reason: 'an entry the manifest does not list' });
      continue;
    }
    if (m.type !== r.type) problems.push({ entry: r.path, reason: `a ${r.type} where the manifest records a ${m.type}` });
    else if (m.size !== r.size) problems.push({ entry: r.path, reason: `${r.size} bytes where the manifest records ${m.size}` });
    else if (m.sha256 !== r.sha256) problems.push({ entry: r.path, reason: 'a checksum that does not match the manifest' });
    else if ((m.target ?? null) !== (r.target ?? null)) problems.push({ entry: r.path, reason: 'a link target that does not match the manifest' });
    else if ((m.mode & 0o7777) !== (r.mode & 0o7777)) problems.push({ entry: r.path, reason: 'a mode that does not match the manifest' });
  }
  for (const m of manifest.entries) {
    if (!seen.has(m.path)) problems.push({ entry: m.path, reason: 'listed in the manifest but missing from the archive' });
  }
  return problems;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * `<stack>-YYYYMMDD-HHMMSS[-N].tar.gz` (UTC). Two backups in the same second never share a name: `exists`
 * is asked about each candidate and -2, -3, ... are added until one is free.
 */
export function backupName(stack: string, now: Date, exists: (name: string) => boolean, ext = '.tar.gz'): string {
  const d = now;
  const stamp = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
  const base = `${stack}-${stamp}`;
  if (!exists(`${base}${ext}`)) return `${base}${ext}`;
  for (let n = 2; n < 1000; n++) {
    const name = `${base}-${n}${ext}`;
    if (!exists(name)) return name;
  }
  throw new AppError('conflict', `too many backups of '${stack}' in one second`, { params: { stack } });
}
