/**
 * The file operations the stack store (stack-store.ts) makes on Kade's folders, and nothing else: the store is the
 * one owner of an app's folder, and this port is the one thing it does I/O through. `disk-io.ts` is the real one,
 * `memory-io.ts` keeps a tree in memory for unit tests; both pass `stack-store.contract.ts`.
 */

export type EntryKind = 'file' | 'dir' | 'link';

export interface FileStat {
  kind: 'file' | 'dir';
  /** Permission bits (0o777 mask). */
  mode: number;
  /** Changes whenever the content may have changed (mtime and size on disk): what a parse cache keys on. */
  stamp: string;
}

/** A file to write: the whole new content, and the mode it gets exactly (not masked by the umask). */
export interface FileWrite {
  path: string;
  content: string | Buffer;
  mode: number;
}

export interface FolderIO {
  /** The bytes of a file (links followed), or null when there is none or it is no file. */
  read(path: string): Buffer | null;
  /** What is at `path` with links followed, or null when nothing (or a dangling link) is. */
  stat(path: string): FileStat | null;
  /** What is at `path` itself (a link is a link), or null. */
  kind(path: string): EntryKind | null;
  /** The path with every link resolved, or null when it does not exist. */
  realpath(path: string): string | null;
  /** A link's target as written, or null when `path` is no link. */
  readlink(path: string): string | null;
  /** The entries of a folder with their own kind; [] when it is no folder. */
  list(dir: string): { name: string; kind: EntryKind }[];
  /**
   * Writes several files so that none changes unless all could be written: every content goes to a temp file beside
   * its target first (a full disk fails there, `disk_full`, with the old files untouched), then the renames.
   * `afterRename` runs after each rename and mode change (a fault test stops Kade there).
   */
  write(files: readonly FileWrite[], opts?: { afterRename?: (path: string) => void }): void;
  /** Removes a file, a link (never its target) or a whole folder; nothing there is no error. */
  remove(path: string): void;
  /** Renames a file, link or folder (same file system); the target must not exist as a folder with entries. */
  rename(from: string, to: string): void;
  /** Makes a folder and its missing parents; the folder gets `mode` also when it existed (Kade's own state folders stay private). */
  mkdir(path: string, mode: number): void;
  /** Makes a link at `path` pointing to `target`. */
  symlink(target: string, path: string): void;
}
