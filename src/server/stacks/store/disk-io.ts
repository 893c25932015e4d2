import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { writeFilesAtomic } from '../../core/fs-atomic.ts';
import type { EntryKind, FolderIO } from './folder-io.ts';

const kindOf = (d: { isSymbolicLink(): boolean; isDirectory(): boolean; isFile(): boolean }): EntryKind | null =>
  d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : null;

/** What `read` answers, or null when it throws (nothing there, no permission, not a file or link). */
function orNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/** The stack store's folders on the real disk (node:fs, writes through core/fs-atomic.ts). */
export function diskIO(): FolderIO {
  return {
    read: (path) => orNull(() => readFileSync(path)),
    stat(path) {
      const st = statSync(path, { throwIfNoEntry: false });
      if (!st || !(st.isFile() || st.isDirectory())) return null;
      return { kind: st.isDirectory() ? 'dir' : 'file', mode: st.mode & 0o777, stamp: `${st.mtimeMs}:${st.size}` };
    },
    kind(path) {
      const st = lstatSync(path, { throwIfNoEntry: false });
      return st ? kindOf(st) : null;
    },
    realpath: (path) => orNull(() => realpathSync(path)),
    readlink: (path) => orNull(() => readlinkSync(path)),
    list: (dir) =>
      orNull(() => readdirSync(dir, { withFileTypes: true }))?.flatMap((e) => {
        const kind = kindOf(e);
        return kind ? [{ name: e.name, kind }] : [];
      }) ?? [],
    write(files, opts = {}) {
      const modes = new Map(files.map((f) => [f.path, f.mode]));
      writeFilesAtomic([...files], {
        afterRename: (path) => {
          // The temp file was made with the mode, masked by the umask: set exactly.
          chmodSync(path, modes.get(path) ?? 0o600);
          opts.afterRename?.(path);
        },
      });
    },
    remove: (path) => rmSync(path, { recursive: true, force: true }),
    rename: (from, to) => renameSync(from, to),
    mkdir: (path, mode) => {
      mkdirSync(path, { recursive: true, mode });
      chmodSync(path, mode);
    },
    symlink: (target, path) => symlinkSync(target, path, 'dir'),
  };
}
