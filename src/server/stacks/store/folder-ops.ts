import { randomBytes } from 'node:crypto';
import { isAbsolute, join, resolve } from 'node:path';
import type { Actor } from '../../core/events.ts';
import { failpoint } from '../../core/failpoint.ts';
import type { ComposeProject } from '../../engine/compose.ts';
import type { Seals } from './file-seal.ts';
import type { FileWrite, FolderIO } from './folder-io.ts';
import type { Snapshots } from './snapshots.ts';
import type { StackDirsAll, StackLocation } from './stack-dir.ts';
import { COMPOSE_FILE, ENV_FILE, META_FILE } from './stack-files.ts';

/** What the store's operations share (stack-store.ts builds it once). */
export interface StoreParts {
  io: FolderIO;
  libraryDir: string;
  stateDir: string;
  seals: Seals;
  dirs: StackDirsAll;
  snapshots: Snapshots;
  /** Seals the app's files as `actor`'s, as they are now (nothing when it has no compose file). */
  sealNow(name: string, actor: Actor): void;
}

/** An app's folder moved aside while another is swapped in (a backup's restore); plain data, kept in the job's record. */
export interface FolderSwap {
  name: string;
  /** LIBRARY_DIR/<name>. */
  live: string;
  /** Where the folder waits until the swap succeeds. */
  aside: string;
  existed: boolean;
  /** The app's seal before the swap (undefined: a plan from before seals were kept, which leaves the seal as it is). */
  seal?: string | null;
}

/** Modes of an app's files: `.env` holds secrets and Kade's own files are Kade's; a compose file keeps the mode it has. */
export const MODES = { env: 0o600, meta: 0o600, override: 0o600, newCompose: 0o644 } as const;

/** The temp folder an install writes before renaming it into place. */
const INSTALL_TEMP = /^\.tmp-([a-z0-9][a-z0-9_-]*)-[0-9a-f]{8}$/;

const hex = () => randomBytes(4).toString('hex');

/** The one folder an app's other files go in (stacks/store owns it as it owns the compose file). */
const EXTRA_DIR = 'configs';
const EXTRA_PATH = /^configs\/(?!\.)[A-Za-z0-9._-]{1,100}$/;

/** An app's other files as writes into `dir`; a path outside `configs/` (or with `..`) is refused before anything is written. */
function extraWrites(dir: string, extra: Record<string, string>): FileWrite[] {
  return Object.entries(extra).map(([path, content]) => {
    if (!EXTRA_PATH.test(path) || path.includes('..')) throw new Error(`'${path}' is not a file an app's folder may hold (configs/<name>)`);
    // Read by the container's own user, whoever that is; the app's folder is Kade's, and the bind is read-only.
    return { path: join(dir, path), content, mode: 0o644 };
  });
}

/** A new app's folder (install) and the temp folders a crash left of one. */
export function newFolders(p: StoreParts) {
  const { io } = p;
  return {
    /**
     * A new app's folder: written into a temp folder and renamed into place (never half-written), then sealed as the
     * installing user's. `extra` holds the app's other files by path below its folder (an imported store's inline
     * configs, `configs/<name>`, which its compose file binds read-only). Throws when the name is taken meanwhile.
     */
    create(name: string, files: { compose: string; env: string; meta: string; extra?: Record<string, string> }, actor: Actor): StackLocation {
      const final = join(p.libraryDir, name);
      const tmp = join(p.libraryDir, `.tmp-${name}-${hex()}`);
      const extra = extraWrites(tmp, files.extra ?? {});
      io.mkdir(tmp, 0o755);
      try {
        io.write([{ path: join(tmp, COMPOSE_FILE), content: files.compose, mode: MODES.newCompose }]);
        failpoint('install.temp');
        if (extra.length > 0) io.mkdir(join(tmp, EXTRA_DIR), 0o755);
        io.write([
          { path: join(tmp, ENV_FILE), content: files.env, mode: MODES.env },
          { path: join(tmp, META_FILE), content: files.meta, mode: MODES.meta },
          ...extra,
        ]);
        if (io.kind(final) !== null) throw new Error(`'${final}' appeared while installing`);
        io.rename(tmp, final);
      } catch (err) {
        io.remove(tmp);
        throw err;
      }
      p.sealNow(name, actor);
      return p.dirs.locate(name);
    },

    /** Install temp folders a crash left (`which` says whose): removed; their names are returned. */
    cleanInstallTemps(which: (app: string) => boolean): string[] {
      const gone = io
        .list(p.libraryDir)
        .map((e) => e.name)
        .filter((n) => {
          const m = INSTALL_TEMP.exec(n);
          return m?.[1] !== undefined && which(m[1]);
        });
      for (const n of gone) io.remove(join(p.libraryDir, n));
      return gone;
    },
  };
}

/** Adoption: the user's folder looked at, linked under LIBRARY_DIR and its links kept absolute. */
export function adoptedFolders(p: StoreParts) {
  const { io } = p;
  return {
    /** A folder outside Kade's, about to be adopted: where it really is and what compose would read there (null: none). */
    foreignFolder(path: string): { real: string; isDir: boolean; composeFile: string | null; compose: string; env: string } | null {
      const real = io.realpath(path);
      if (!real) return null;
      const isDir = io.stat(real)?.kind === 'dir';
      const composeFile = isDir ? p.dirs.composePath(real) : null;
      const text = (f: string | null) => (f ? (io.read(f)?.toString('utf8') ?? '') : '');
      return { real, isDir, composeFile, compose: text(composeFile), env: isDir ? text(join(real, ENV_FILE)) : '' };
    },

    /**
     * LIBRARY_DIR/<name> becomes a link to the user's folder, the metadata goes to SVC_DATA/adopted (nothing in their
     * folder changes), and the folder's files are sealed as `actor`'s.
     */
    adopt(name: string, folder: string, meta: string, actor: Actor): StackLocation {
      io.mkdir(p.dirs.adoptedDir, 0o700);
      const metaPath = p.dirs.adoptedMetaPath(name);
      io.write([{ path: metaPath, content: meta, mode: MODES.meta }]);
      try {
        io.symlink(folder, join(p.libraryDir, name));
      } catch (err) {
        io.remove(metaPath);
        throw err;
      }
      p.sealNow(name, actor);
      return p.dirs.locate(name);
    },

    /** A relative link of an adopted app made absolute against the library it was written for (the path move's copy). */
    absoluteLink(name: string, from: string): void {
      const path = join(p.libraryDir, name);
      const target = io.kind(path) === 'link' ? io.readlink(path) : null;
      if (target === null || isAbsolute(target)) return;
      io.remove(path);
      io.symlink(resolve(from, target), path);
    },
  };
}

/** Removal of an app's folder, and the compose editor's candidate beside Kade's state. */
export function folderEnds(p: StoreParts) {
  const { io } = p;
  const tmpDir = join(p.stateDir, 'tmp');
  return {
    /** Removes an app's folder (an adopted app: only the link and Kade's own files of it), snapshots and seal. */
    remove(loc: StackLocation): void {
      if (loc.adopted) {
        io.remove(loc.path);
        io.remove(loc.metaPath);
        io.remove(p.dirs.adoptedOverridePath(loc.name));
      } else {
        io.remove(loc.dir);
      }
      p.snapshots.forget(loc.name);
      p.seals.forget(loc.name);
    },

    /** A compose text beside Kade's state as the app's compose file for `check`, removed afterwards. */
    async withCandidate<T>(loc: StackLocation, content: string, check: (project: ComposeProject) => Promise<T>): Promise<T> {
      io.mkdir(tmpDir, 0o700);
      const candidate = join(tmpDir, `${loc.name}-${hex()}.yml`);
      io.write([{ path: candidate, content, mode: 0o600 }]);
      try {
        return await check({ ...p.dirs.project({ ...loc, composeFile: loc.composeFile ?? join(loc.dir, COMPOSE_FILE) }), file: candidate });
      } finally {
        io.remove(candidate);
      }
    },
  };
}

/** The swap of a whole folder (a backup's restore), every step undoable from the plan alone (also after a crash). */
export function folderSwap(p: StoreParts) {
  const { io } = p;
  return {
    /** What a swap of the app's folder will move where (recorded by the job before the first move). */
    plan(name: string, tag: string): FolderSwap {
      const live = p.dirs.find(name)?.path ?? join(p.libraryDir, name);
      return { name, live, aside: join(p.libraryDir, `.aside-${name}-${tag}`), existed: io.stat(live) !== null, seal: p.seals.text(name) };
    },
    /** The app's folder goes aside (when there was one). */
    aside(s: FolderSwap): void {
      if (s.existed) io.rename(s.live, s.aside);
    },
    /** `staged` becomes the app's folder; its files are sealed as `actor`'s (judged before). */
    moveIn(s: FolderSwap, staged: string, actor: Actor): void {
      io.rename(staged, s.live);
      p.sealNow(s.name, actor);
    },
    /** The state before the swap: the folder aside back (or the new one gone), with the seal it had. */
    putBack(s: FolderSwap): void {
      if (io.kind(s.aside) !== null) {
        io.remove(s.live);
        io.rename(s.aside, s.live);
      } else if (!s.existed) io.remove(s.live);
      if (s.seal !== undefined) p.seals.putText(s.name, s.existed ? s.seal : null);
    },
    /** Once the swap succeeded: the folder aside goes. */
    done(s: FolderSwap): void {
      io.remove(s.aside);
    },
  };
}
