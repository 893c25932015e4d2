/**
 * Writing a backup archive: the stack folder, the app data folder and the dumps as one tar stream,
 * compressed, streamed file by file (never a whole file in memory), with a manifest as the last entry
 * and beside the archive. Written to a temp name, synced and linked into place without replacing
 * anything; on any failure nothing is left behind.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, createWriteStream, fsyncSync, linkSync, lstatSync, openSync, readlinkSync, rmSync, type Stats, unlinkSync } from 'node:fs';
import { lstat, open, readdir, readlink, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Header, type Pack, pack as tarPack } from 'tar-stream';
import { AppError } from '../core/errors.ts';
import { writeFileAtomic } from '../core/fs-atomic.ts';
import {
  type ArchiveLimits,
  DEFAULT_LIMITS,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST_NAME,
  type Manifest,
  type ManifestEntry,
  resolveInBranch,
} from './archive-format.ts';
import { type Compression, compressInto, STAGE_BYTES, waitDrain } from './archive-stream.ts';

export interface DumpSource {
  /** The file name under `dumps/` (letters, digits, `.`, `_`, `-`). */
  name: string;
  /** Opened only when its turn comes; an error while reading it fails the whole archive. */
  stream: () => Promise<NodeJS.ReadableStream> | NodeJS.ReadableStream;
}

export interface WriteOptions {
  /** The final path of the archive; `<dest>.json` is written beside it. Must not exist yet. */
  dest: string;
  branches: { stack: string; appdata?: string; dumps?: DumpSource[] };
  /** The caller's metadata, kept in the manifest under `meta`. */
  meta: Record<string, unknown>;
  compression?: Compression;
  /** Called for each path that is not backed up, with the reason; the rest continues. */
  onSkip?: (path: string, reason: string) => void;
  now?: Date;
  /** The limits a restore applies (default DEFAULT_LIMITS): a backup past them fails instead of being unrestorable. */
  limits?: ArchiveLimits;
}

const DUMP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const ZEROS = Buffer.alloc(64 * 1024);
/** Files are read 1 MiB at a time: fewer, larger chunks through hashing, tar and the compressor. */
const READ_CHUNK = 1024 * 1024;
const errCode = (e: unknown) => (e as NodeJS.ErrnoException | null)?.code ?? (e instanceof Error ? e.message : String(e));

/** The writable side of a tar entry as tar-stream gives it (a streamx stream). */
type Sink = ReturnType<Pack['entry']>;
type Headers = Partial<Header> & Pick<Header, 'name'>;

interface State {
  pack: Pack;
  entries: ManifestEntry[];
  skipped: { path: string; reason: string }[];
  stripped: string[];
  onSkip: (path: string, reason: string) => void;
  limits: ArchiveLimits;
  bytes: number;
}

/** An archive a restore would refuse is not written at all: the limits hold here too (one entry kept for the manifest). */
function room(s: State, path: string, size: number): void {
  s.bytes += size;
  if (s.entries.length + 2 > s.limits.maxEntries) {
    throw new AppError(
      'archive_refused',
      `more than ${s.limits.maxEntries} files, folders and links to back up (at ${path}); a restore would refuse this archive`,
      {
        params: { entry: path, reason: `more than ${s.limits.maxEntries} entries` },
      },
    );
  }
  if (s.bytes > s.limits.maxBytes) {
    throw new AppError('archive_refused', `more than ${s.limits.maxBytes} bytes to back up (at ${path}); a restore would refuse this archive`, {
      params: { entry: path, reason: `more than ${s.limits.maxBytes} bytes` },
    });
  }
}

function skip(s: State, path: string, reason: string): void {
  s.skipped.push({ path, reason });
  s.onSkip(path, reason);
}

/** What `read` answers of the entry at `path`; null once the entry was skipped as unreadable. */
async function readOrSkip<T>(s: State, path: string, read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (e) {
    skip(s, path, `cannot be read (${errCode(e)})`);
    return null;
  }
}

/** Opens an entry and waits until tar-stream has taken all of it. */
function openEntry(pack: Pack, header: Headers): { sink: Sink; done: Promise<void> } {
  let settle: (err?: Error | null) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    settle = (err) => (err ? reject(err) : resolve());
  });
  done.catch(() => undefined);
  const sink = pack.entry(header, (err) => settle(err));
  return { sink, done };
}

/** Streams exactly `size` bytes into an entry: a file that grew is cut, one that shrank is padded. */
async function streamInto(sink: Sink, chunks: AsyncIterable<Buffer> | null, size: number): Promise<{ sha256: string; short: number }> {
  const hash = createHash('sha256');
  let n = 0;
  const put = async (c: Buffer) => {
    hash.update(c);
    n += c.length;
    if (!sink.write(c)) await waitDrain(sink);
  };
  if (chunks && size > 0) {
    for await (const chunk of chunks) {
      if (sink.destroying || sink.destroyed) break;
      await put(n + chunk.length > size ? chunk.subarray(0, size - n) : chunk);
      if (n >= size) break;
    }
  }
  const short = size - n;
  while (n < size && !(sink.destroying || sink.destroyed)) await put(ZEROS.subarray(0, Math.min(ZEROS.length, size - n)));
  sink.end(undefined);
  return { sha256: hash.digest('hex'), short };
}

function modeOf(s: State, path: string, st: Stats): number {
  const mode = st.mode & 0o7777;
  if ((mode & 0o6000) === 0) return mode;
  s.stripped.push(path);
  return mode & ~0o6000;
}

function addVoid(s: State, path: string, st: Stats, type: 'directory' | 'symlink', target?: string): Promise<void> {
  room(s, path, 0);
  const mode = modeOf(s, path, st);
  const header: Headers = { name: path, type, mode, uid: st.uid, gid: st.gid, mtime: st.mtime, size: 0 };
  if (target !== undefined) header.linkname = target;
  const { sink, done } = openEntry(s.pack, header);
  sink.end(undefined);
  s.entries.push({ path, type, size: 0, mode, uid: st.uid, gid: st.gid, sha256: null, ...(target !== undefined ? { target } : {}) });
  return done;
}

async function addFile(s: State, path: string, abs: string): Promise<void> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: a file swapped for a FIFO after the listing must not hang the backup.
    fh = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    skip(s, path, `cannot be read (${errCode(e)})`);
    return;
  }
  const st = await fh.stat();
  if (!st.isFile()) {
    await fh.close();
    skip(s, path, 'changed into something other than a file while being read');
    return;
  }
  const size = st.size;
  try {
    room(s, path, size);
  } catch (e) {
    await fh.close();
    throw e;
  }
  const mode = modeOf(s, path, st);
  const { sink, done } = openEntry(s.pack, { name: path, type: 'file', mode, uid: st.uid, gid: st.gid, mtime: st.mtime, size });
  // The read stream closes the handle itself (a handle with a stream on it cannot be closed apart).
  const chunks = size > 0 ? fh.createReadStream({ start: 0, end: size - 1, highWaterMark: READ_CHUNK }) : null;
  try {
    const { sha256, short } = await streamInto(sink, chunks, size);
    await done;
    if (short > 0) skip(s, path, `shrank by ${short} bytes while being read; stored padded with zeros`);
    s.entries.push({ path, type: 'file', size, mode, uid: st.uid, gid: st.gid, sha256 });
  } finally {
    if (chunks) {
      if (!chunks.closed) await new Promise<void>((resolve) => chunks.destroy().once('close', () => resolve()));
    } else await fh.close();
  }
}

const KIND = (st: Stats) =>
  st.isSocket() ? 'a socket' : st.isFIFO() ? 'a FIFO' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'a special file';

async function addTree(s: State, branch: string, root: string): Promise<{ uid: number; gid: number }> {
  const top = await stat(root);
  if (!top.isDirectory()) throw new AppError('validation', `${root} is not a folder`, { params: { path: root } });
  await addVoid(s, branch, top, 'directory');
  const lookup = (rel: string): string | null => {
    try {
      return lstatSync(join(root, rel)).isSymbolicLink() ? readlinkSync(join(root, rel)) : null;
    } catch {
      return null; // gone or unreadable: followed as a plain name
    }
  };
  const visit = async (rel: string[]): Promise<void> => {
    let names: string[];
    try {
      names = (await readdir(join(root, ...rel))).sort();
    } catch (e) {
      skip(s, [branch, ...rel].join('/'), `the folder's contents cannot be listed (${errCode(e)})`);
      return;
    }
    for (const name of names) {
      const relp = [...rel, name];
      const abs = join(root, ...relp);
      const path = `${branch}/${relp.join('/')}`;
      const st = await readOrSkip(s, path, () => lstat(abs));
      if (st === null) continue;
      if (st.isDirectory()) {
        await addVoid(s, path, st, 'directory');
        await visit(relp);
      } else if (st.isFile()) await addFile(s, path, abs);
      else if (st.isSymbolicLink()) {
        const target = await readOrSkip(s, path, () => readlink(abs));
        if (target === null) continue;
        if (resolveInBranch(rel, target, lookup) === null) skip(s, path, `a link to ${target}, outside the ${branch} folder`);
        else await addVoid(s, path, st, 'symlink', target);
      } else skip(s, path, `${KIND(st)} is not backed up`);
    }
  };
  await visit([]);
  return { uid: top.uid, gid: top.gid };
}

/**
 * The dumps spooled one after another into 0600 files beside the archive (a tar header needs the size first),
 * started at once so the database writes its dump while the folders are archived. Their paths go into
 * `spools` as they are made, for the clean-up; `signal` stops a dump still being read.
 */
async function spoolDumps(dumps: DumpSource[], dir: string, spools: string[], signal: AbortSignal): Promise<void> {
  for (const dump of dumps) {
    const spool = join(dir, `.dump-${randomBytes(6).toString('hex')}.tmp`);
    spools.push(spool);
    await pipeline(await dump.stream(), createWriteStream(spool, { flags: 'wx', mode: 0o600, highWaterMark: STAGE_BYTES }), { signal });
  }
}

function checkDumps(dumps: DumpSource[]): void {
  const seen = new Set<string>();
  for (const d of dumps) {
    if (!DUMP_NAME.test(d.name) || seen.has(d.name)) {
      throw new AppError('validation', `'${d.name}' is not a usable dump name (letters, digits, . _ -; each once)`, { params: { name: d.name } });
    }
    seen.add(d.name);
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the archive and returns its manifest (also written beside it as `<dest>.json`, mode 0600).
 * Entries: `stack/...`, `appdata/...`, `dumps/<name>`, then `kade-backup.json`. Files, folders and links
 * whose target stays inside their branch are kept; other links, sockets, FIFOs, devices and unreadable
 * paths are skipped and listed; setuid/setgid bits are dropped and listed (a restore would refuse them).
 */
export async function writeArchive(o: WriteOptions): Promise<Manifest> {
  const dumps = o.branches.dumps ?? [];
  checkDumps(dumps);
  const compression = o.compression ?? 'gzip';
  const dir = dirname(o.dest);
  if (lstatSync(o.dest, { throwIfNoEntry: false })) {
    throw new AppError('conflict', `${o.dest} already exists; a backup never replaces another`, { params: { path: o.dest } });
  }
  const tmp = join(dir, `.${basename(o.dest)}.${randomBytes(6).toString('hex')}.tmp`);
  const spools: string[] = [];
  // A few MiB may wait between the tar side and the compressor, so each keeps busy while the other works.
  const pack = tarPack({ highWaterMark: STAGE_BYTES });
  const source = Readable.from(pack, { objectMode: false, highWaterMark: STAGE_BYTES });
  const written = compressInto(compression, source, tmp);
  written.catch((e: unknown) => pack.destroy(e instanceof Error ? e : new Error(String(e))));
  const s: State = { pack, entries: [], skipped: [], stripped: [], onSkip: o.onSkip ?? (() => undefined), limits: o.limits ?? DEFAULT_LIMITS, bytes: 0 };
  const stopDumps = new AbortController();
  const spooled = spoolDumps(dumps, dir, spools, stopDumps.signal);
  // Awaited once the folders are in; a failure before then is that error, not this one.
  spooled.catch(() => undefined);
  let linked = false;
  try {
    const owners: Manifest['owners'] = { stack: await addTree(s, 'stack', o.branches.stack) };
    if (o.branches.appdata !== undefined) owners.appdata = await addTree(s, 'appdata', o.branches.appdata);
    if (dumps.length > 0) {
      const me = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
      room(s, 'dumps', 0);
      const { sink, done } = openEntry(pack, { name: 'dumps', type: 'directory', mode: 0o700, ...me, mtime: o.now ?? new Date(), size: 0 });
      sink.end(undefined);
      await done;
      s.entries.push({ path: 'dumps', type: 'directory', size: 0, mode: 0o700, ...me, sha256: null });
      await spooled;
      for (const [i, d] of dumps.entries()) {
        const spool = spools[i] as string;
        await addFile(s, `dumps/${d.name}`, spool);
        rmSync(spool, { force: true });
      }
    }
    const manifest: Manifest = {
      format: FORMAT,
      version: FORMAT_VERSION,
      created_at: (o.now ?? new Date()).toISOString(),
      compression,
      entries: s.entries,
      skipped: s.skipped,
      stripped: s.stripped,
      owners,
      meta: o.meta,
    };
    // Compact: the manifest of a large app lists every file.
    const json = Buffer.from(`${JSON.stringify(manifest)}\n`);
    const { sink, done } = openEntry(pack, { name: MANIFEST_NAME, type: 'file', mode: 0o600, mtime: o.now ?? new Date(), size: json.length });
    sink.end(json);
    await done;
    pack.finalize();
    await written;
    // link, not rename: a name that appeared meanwhile is never replaced.
    linkSync(tmp, o.dest);
    linked = true;
    unlinkSync(tmp);
    writeFileAtomic(`${o.dest}.json`, json, 0o600);
    syncDir(dir);
    return manifest;
  } catch (e) {
    stopDumps.abort();
    await spooled.catch(() => undefined);
    pack.destroy();
    source.destroy();
    // The file must be closed before it is removed, or a late open would leave it behind.
    await written.catch(() => undefined);
    rmSync(tmp, { force: true });
    if (linked) rmSync(o.dest, { force: true });
    for (const p of spools) rmSync(p, { force: true });
    const code = (e as NodeJS.ErrnoException | null)?.code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      throw new AppError('disk_full', `disk full: there is no space left to write ${o.dest}`, { params: { path: o.dest }, cause: e });
    }
    if (code === 'EEXIST') {
      throw new AppError('conflict', `${o.dest} already exists; a backup never replaces another`, { params: { path: o.dest }, cause: e });
    }
    throw e;
  }
}
