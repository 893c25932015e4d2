/**
 * The backup archive format (SPEC: Backup archive), for the backup service and nothing else: it knows
 * folders, streams and limits, not apps, jobs or HTTP.
 *
 * An archive is one tar stream, gzip (default) or zstd compressed, with three branches and a manifest:
 *
 *   stack/...          the app's folder (compose file, .env, .svc.json)
 *   appdata/...        DATA_DIR/<stack>, when backed up
 *   dumps/<name>       one logical dump per database
 *   kade-backup.json   the manifest, always the last entry, and also written beside the archive as
 *                      `<archive>.json`: format, version, created_at, compression, entries
 *                      [{path, type, size, mode, uid, gid, sha256, target?}], skipped [{path, reason}],
 *                      stripped (setuid/setgid bits dropped), owners (per branch root) and the caller's meta.
 *
 * - writeArchive(opts): streams everything into `<dest>` (temp name, fsync, linked into place, 0600,
 *   never replacing a file); unreadable paths, sockets, FIFOs, devices and links leaving their branch are
 *   skipped and listed; on failure nothing is left behind.
 * - backupName(stack, now, exists): `<stack>-YYYYMMDD-HHMMSS[-N].tar.gz`, never the name of an existing one.
 * - verifyArchive(path): reads every byte; ok only when every entry matches the manifest and nothing is
 *   truncated, missing, extra or hostile.
 * - inspectArchive(path, limits): the same pass, with the problems per entry.
 * - checkCompressed(path): the whole file read back through its compressor's own checksum (the read-back
 *   right after a backup, whose entries' checksums were computed while writing).
 * - extractArchive(path, target, limits): one pass that judges the whole archive as verifyArchive does
 *   while it writes into a new 0700 folder; refuses (`archive_refused`, naming entry and reason) unless
 *   everything passes, and then removes what it wrote. Links are made only after the pass.
 */

export { type BranchCount, type Extracted, extractArchive } from './archive-extract.ts';
/** What writeArchive returns: the manifest as written. */
export type { Manifest as ArchiveMeta } from './archive-format.ts';
export { type ArchiveLimits, type ArchiveProblem, backupName, DEFAULT_LIMITS, MANIFEST_NAME, type Manifest, type ManifestEntry } from './archive-format.ts';
export { type Inspection, inspectArchive, verifyArchive } from './archive-read.ts';
export { type Compression, checkCompressed } from './archive-stream.ts';
export { type DumpSource, type WriteOptions, writeArchive } from './archive-write.ts';
