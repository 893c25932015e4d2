/**
 * The byte side of the archive: gzip through zlib, zstd through the `zstd` program (Node 20's zlib has
 * none), and one bounded read loop over the tar entries that both verification and extraction use.
 * Buffers between the stages are a few MiB (not Node's 16-64 KiB), so the compressor, which sets the
 * pace, is never left waiting on the tar side; memory stays bounded by them, whatever the data's size.
 */
import { closeSync, createReadStream, createWriteStream, openSync, readSync } from 'node:fs';
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { type Header, extract as tarExtract } from 'tar-stream';
import { type PipedChild, runPiped } from '../core/exec.ts';
import type { ArchiveLimits } from './archive-format.ts';

export type Compression = 'gzip' | 'zstd';

/** Bytes held between two stages of the pipeline (and the chunk size of file reads and zlib's output). */
export const STAGE_BYTES = 4 * 1024 * 1024;
const CHUNK = 1024 * 1024;

/**
 * zstd's own default level, 3, on every core (`-T0`): on the data apps keep (photos, video, already
 * compressed files, databases) higher levels gain a few percent of size for several times the CPU time,
 * and level 3 already compresses text about as well as gzip -6 at many times its speed. Threads do not
 * change the output's format: any zstd reads it.
 */
const ZSTD_WRITE = ['-3', '-T0'];

/** A stop while reading: the archive as a whole (entry '') or one entry cannot be accepted. */
export class ArchiveStop extends Error {
  constructor(
    readonly entry: string,
    readonly reason: string,
  ) {
    super(entry ? `${entry}: ${reason}` : reason);
  }
}

/** Which compression the file's first bytes announce, or null for neither. */
export function sniffCompression(path: string): Compression | null {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(4);
    const n = readSync(fd, b, 0, 4, 0);
    if (n >= 2 && b[0] === 0x1f && b[1] === 0x8b) return 'gzip';
    if (n === 4 && b.readUInt32LE(0) === 0xfd2fb528) return 'zstd';
    return null;
  } finally {
    closeSync(fd);
  }
}

function zstd(args: string[], stdin: 'pipe' | 'ignore'): PipedChild & { done: Promise<void> } {
  const child = runPiped('zstd', args, { stdin });
  const done = child.exited.then(
    ({ code, signal, stderr }) => {
      if (code !== 0) throw new Error(`zstd: ${stderr.trim() || `ended with ${signal ?? `exit code ${code}`}`}`);
    },
    (e: NodeJS.ErrnoException) => {
      throw e.code === 'ENOENT' ? new Error('the zstd program is not installed (Debian package zstd)') : e;
    },
  );
  done.catch(() => undefined);
  return { ...child, done };
}

/**
 * Compresses a stream of tar bytes into `path` (created 0600, never replacing a file, synced before it is
 * closed). `done` settles once every byte reached the file and the file is closed, on success or not.
 */
export function compressInto(kind: Compression, source: Readable, path: string): Promise<void> {
  const file = createWriteStream(path, { flags: 'wx', mode: 0o600, flush: true, highWaterMark: STAGE_BYTES });
  const closed = new Promise<void>((resolve) => file.once('close', () => resolve()));
  if (kind === 'gzip') {
    // zlib runs on the thread pool: large chunks mean few round trips to it; the level stays zlib's default (6).
    const piped = pipeline(source, createGzip({ chunkSize: CHUNK }), file);
    return piped.finally(() => closed);
  }
  const child = zstd([...ZSTD_WRITE, '-q', '-c', '--no-progress'], 'pipe');
  const input = pipeline(source, child.stdin as Writable);
  const output = pipeline(child.stdout, file);
  const all = Promise.all([input, output, child.done]).then(() => undefined);
  all.catch(() => {
    child.kill();
    source.destroy();
    file.destroy();
  });
  return Promise.allSettled([all, closed]).then(() => all);
}

function openDecompressed(path: string, kind: Compression): { stream: AsyncIterable<Buffer>; done: Promise<void>; abort(): void } {
  if (kind === 'gzip') {
    const src = createReadStream(path, { highWaterMark: CHUNK });
    const gz = createGunzip({ chunkSize: CHUNK });
    src.on('error', (e) => gz.destroy(e));
    src.pipe(gz);
    return {
      stream: gz,
      done: Promise.resolve(),
      abort: () => {
        src.destroy();
        gz.destroy();
      },
    };
  }
  const child = zstd(['-d', '-q', '-c', '--no-progress', '--', path], 'ignore');
  return { stream: child.stdout, done: child.done, abort: child.kill };
}

/**
 * Reads a whole archive back through its compressor's own check of every byte it was given (zstd's XXH64 of the
 * content, which its command line writes by default; gzip's CRC-32 and length): proof that the file holds what
 * was written, at the compressor's speed, without taking the tar apart again as verifyArchive does. Null when
 * it reads back whole, else what is wrong.
 */
export async function checkCompressed(path: string): Promise<string | null> {
  const kind = sniffCompression(path);
  if (!kind) return 'not a gzip or zstd compressed archive';
  try {
    if (kind === 'zstd') {
      const child = zstd(['-t', '-q', '--no-progress', '--', path], 'ignore');
      child.stdout.resume();
      await child.done;
    } else {
      const sink = new Writable({ write: (_c, _e, done) => done(), highWaterMark: STAGE_BYTES });
      await pipeline(createReadStream(path, { highWaterMark: CHUNK }), createGunzip({ chunkSize: CHUNK }), sink);
    }
    return null;
  } catch (e) {
    return `the archive does not read back as written (${describe(e)})`;
  }
}

/** Room for headers, padding and the end blocks beyond the declared sizes (and what the parser buffers). */
const HEADER_ROOM = 8192;
const SLACK = 8 * 1024 * 1024;

export interface EntryHeader {
  name: string;
  type: string | null;
  size: number;
  mode: number;
  uid: number;
  gid: number;
  mtime: Date;
  linkname: string | null;
}

/** One entry while it is read: its header and its bytes (read them, or they are skipped). */
export interface EntryIn {
  header: EntryHeader;
  data: AsyncIterable<Buffer>;
}

/** Resolves when `w` drains or closes; at once when it is already being destroyed (its `close` may have fired). */
export function waitDrain(w: {
  once(ev: 'drain' | 'close', fn: () => void): unknown;
  off(ev: 'drain' | 'close', fn: () => void): unknown;
  destroying?: boolean;
  destroyed?: boolean;
}): Promise<void> {
  return new Promise((resolve) => {
    if (w.destroying || w.destroyed) {
      resolve();
      return;
    }
    const done = () => {
      w.off('drain', done);
      w.off('close', done);
      resolve();
    };
    w.once('drain', done);
    w.once('close', done);
  });
}

const describe = (e: unknown) => (e instanceof Error ? e.message : String(e));
const asStop = (e: unknown) => (e instanceof ArchiveStop ? e : new ArchiveStop('', `the archive is truncated or corrupt (${describe(e)})`));

type Decompressed = ReturnType<typeof openDecompressed>;
type TarParser = ReturnType<typeof tarExtract>;
type TarEntry = TarParser extends AsyncIterable<infer E> ? E : never;

/** What has been read so far: bytes the entries declare, entries, bytes decompressed. */
interface Tally {
  declared: number;
  count: number;
  real: number;
}

/** Feeds the decompressed bytes to the parser, stopping it when they outgrow what the entries declare. */
async function feedParser(src: Decompressed, ex: TarParser, limits: ArchiveLimits, tally: Tally): Promise<void> {
  const ceiling = limits.maxBytes + limits.maxEntries * HEADER_ROOM + SLACK;
  try {
    for await (const chunk of src.stream) {
      tally.real += chunk.length;
      if (tally.real > Math.min(ceiling, tally.declared + (tally.count + 1) * HEADER_ROOM + SLACK)) {
        throw new ArchiveStop(
          '',
          `more data than its entries declare (over ${tally.real} bytes decompressed for ${tally.declared} declared): a compression bomb`,
        );
      }
      // A reader that stopped early (a restore's look at `stack/` only) destroyed the parser: stop feeding it.
      if (ex.destroying || ex.destroyed) break;
      if (!ex.write(chunk)) await waitDrain(ex);
    }
    await src.done;
    ex.end(undefined);
  } catch (e) {
    ex.destroy(asStop(e));
  }
}

/** The entry's header as the readers see it, counted against the limits. */
function acceptHeader(h: Header, limits: ArchiveLimits, tally: Tally): EntryHeader {
  const header: EntryHeader = {
    name: h.name,
    // tar-stream gives null for a type flag it does not know
    type: (h.type as string | null) ?? null,
    size: h.size,
    mode: h.mode,
    uid: h.uid,
    gid: h.gid,
    mtime: h.mtime,
    linkname: h.linkname || null,
  };
  tally.count++;
  if (tally.count > limits.maxEntries) throw new ArchiveStop(header.name, `more than ${limits.maxEntries} entries`);
  tally.declared += header.size;
  if (tally.declared > limits.maxBytes) throw new ArchiveStop(header.name, `a declared total of more than ${limits.maxBytes} bytes`);
  if (header.type === 'directory' && header.size > 0) throw new ArchiveStop(header.name, 'a folder entry that carries data');
  return header;
}

/** The entry's bytes, failures as ArchiveStop; `consumed` says whether the reader asked for them. */
function entryData(entry: TarEntry): { data: AsyncIterable<Buffer>; consumed: () => boolean } {
  let consumed = false;
  const data: AsyncIterable<Buffer> = {
    [Symbol.asyncIterator]: () => {
      consumed = true;
      const chunks = entry[Symbol.asyncIterator]();
      return {
        next: () =>
          chunks.next().then(
            (r) => r as IteratorResult<Buffer>,
            (e: unknown) => Promise.reject(asStop(e)),
          ),
        return: async () => ({ done: true, value: undefined }),
      };
    },
  };
  return { data, consumed: () => consumed };
}

/**
 * Reads every entry of the archive in order and hands it to `handle`. The limits hold while reading:
 * past `maxEntries`, past a declared total of `maxBytes`, or when the decompressed bytes outgrow what the
 * entries declare (a bomb of padding or zero blocks), reading stops with an ArchiveStop. A truncated or
 * corrupt stream stops with one too.
 */
export async function readEntries(
  path: string,
  limits: ArchiveLimits,
  handle: (e: EntryIn) => Promise<void>,
): Promise<{ compression: Compression; entries: number; bytes: number }> {
  const compression = sniffCompression(path);
  if (!compression) throw new ArchiveStop('', 'not a gzip or zstd compressed archive');
  const src = openDecompressed(path, compression);
  const ex = tarExtract({ highWaterMark: STAGE_BYTES });
  const tally: Tally = { declared: 0, count: 0, real: 0 };
  const feed = feedParser(src, ex, limits, tally);
  const entries = ex[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof entries.next>>;
      try {
        next = await entries.next();
      } catch (e) {
        throw asStop(e);
      }
      if (next.done) break;
      const header = acceptHeader(next.value.header, limits, tally);
      const { data, consumed } = entryData(next.value);
      await handle({ header, data });
      if (!consumed() && header.type !== 'directory' && header.size > 0) {
        for await (const _ of data) void _;
      }
    }
    await feed;
  } catch (e) {
    src.abort();
    ex.destroy();
    await feed;
    throw e;
  }
  return { compression, entries: tally.count, bytes: tally.real };
}
