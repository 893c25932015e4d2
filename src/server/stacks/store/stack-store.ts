import { randomBytes } from 'node:crypto';
import { isAbsolute, join, resolve } from 'node:path';
import type { SnapshotT } from '../../../shared/stack-config.ts';
import { AppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { failpoint } from '../../core/failpoint.ts';
import type { ComposeProject } from '../../engine/compose.ts';
import { createStackDirs, type StackLocation } from '../stack-dir.ts';
import { COMPOSE_FILE, ENV_FILE, META_FILE, parseComposeDoc } from '../stack-files.ts';
import { createSeals, type Seals } from './file-seal.ts';
import type { FileWrite, FolderIO } from './folder-io.ts';
import { createSnapshots, type SnapshotKey } from './snapshots.ts';

/** New contents of an app's files by key; `null` removes the file (a rollback to "there was none"). */
export type FileChanges = Partial<Record<SnapshotKey, string | Buffer | null>>;

export interface WriteOptions {
  /** Who writes: the files are sealed as theirs (compose-gate.ts). */
  actor: Actor;
  /** Take a snapshot of the files as they are first, in the same call, with this reason. */
  snapshot?: string;
  /** Runs after the snapshot (null when none) and before the first write: a job records the snapshot there. */
  beforeWrite?: (snapshot: SnapshotT | null) => void;
  /** Runs after each file is in place (a fault test stops Kade there). */
  afterRename?: (path: string) => void;
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

export interface StackStoreDeps {
  io: FolderIO;
  libraryDir: string;
  /** SVC_DATA: snapshots, seals, adopted apps' metadata and short-lived files. */
  stateDir: string;
  seals: Seals;
  /** Seals files right after the store wrote them, as the writer (the compose gate's `seal`). */
  sealer: { seal(p: ComposeProject, actor: Actor): void };
  clock: () => Date;
}

/** The temp folder an install writes before renaming it into place. */
const INSTALL_TEMP = /^\.tmp-([a-z0-9][a-z0-9_-]*)-[0-9a-f]{8}$/;

/** Modes of an app's files: `.env` holds secrets and Kade's own files are Kade's; a compose file keeps the mode it has. */
const MODES: Record<Exclude<SnapshotKey, 'compose'>, number> = { env: 0o600, meta: 0o600, override: 0o600 };
const NEW_COMPOSE_MODE = 0o644;

const hex = () => randomBytes(4).toString('hex');

/**
 * The one owner of an app's folder: compose file, `.env`, `.svc.json` and, for an adopted app, its metadata and
 * network override in SVC_DATA/adopted. Everything that reads or changes them goes through here: reads, atomic writes
 * with their modes (a snapshot taken inside the same call when asked, the files sealed as the writer's right after),
 * the return to a snapshot (the store's one rollback), a whole folder made (install), linked (adopt) or swapped in (a
 * backup's restore), and removal. All I/O goes through `io`: `disk-io.ts` on the disk, `memory-io.ts` in unit tests.
 */
export function createStackStore(d: StackStoreDeps) {
  const { io } = d;
  const dirs = createStackDirs(io, d.libraryDir, d.stateDir);
  const tmpDir = join(d.stateDir, 'tmp');

  /** Where each of an app's files is; only an adopted app has a network override. */
  const targets = (loc: StackLocation): { key: SnapshotKey; path: string }[] => [
    { key: 'compose', path: loc.composeFile ?? join(loc.dir, COMPOSE_FILE) },
    { key: 'env', path: loc.envPath },
    { key: 'meta', path: loc.metaPath },
    ...(loc.adopted ? [{ key: 'override' as const, path: dirs.adoptedOverridePath(loc.name) }] : []),
  ];
  const snapshots = createSnapshots({ io, root: join(d.stateDir, 'snapshots'), clock: d.clock, seals: d.seals, targets });

  const pathOf = (loc: StackLocation, key: SnapshotKey): string => {
    const t = targets(loc).find((x) => x.key === key);
    if (!t) throw new AppError('conflict', `app '${loc.name}' has no ${key} file: only an adopted app has one`, { params: { stack: loc.name } });
    return t.path;
  };

  /** The text of one of an app's files, or null when it has none. */
  function read(loc: StackLocation, key: SnapshotKey): string | null {
    if (key === 'compose' && !loc.composeFile) return null;
    return io.read(pathOf(loc, key))?.toString('utf8') ?? null;
  }

  /** The compose file as a plain object ({} when missing or unreadable). */
  const composeDoc = (loc: StackLocation): Record<string, unknown> => parseComposeDoc(read(loc, 'compose') ?? '');

  /** The app's compose project, also before its compose file exists (then docker-compose.yml, as Kade writes it). */
  const plannedProject = (loc: StackLocation): ComposeProject => dirs.project({ ...loc, composeFile: loc.composeFile ?? join(loc.dir, COMPOSE_FILE) });

  /** Seals the app's files as `actor`'s, as they are now (an override just written or removed included). */
  function sealNow(name: string, actor: Actor): void {
    const now = dirs.find(name);
    if (now?.composeFile) d.sealer.seal(dirs.project(now), actor);
  }

  /**
   * Writes some of an app's files (all or none, each atomically, with its mode) and seals them as the actor's; with
   * `snapshot`, the files as they were are kept first, in the same call. Returns that snapshot.
   */
  function write(loc: StackLocation, changes: FileChanges, opts: WriteOptions & { snapshot: string }): SnapshotT;
  function write(loc: StackLocation, changes: FileChanges, opts: WriteOptions): SnapshotT | null;
  function write(loc: StackLocation, changes: FileChanges, opts: WriteOptions): SnapshotT | null {
    const planned = Object.entries(changes).map(([key, content]) => ({ key: key as SnapshotKey, path: pathOf(loc, key as SnapshotKey), content }));
    const snap = opts.snapshot ? snapshots.take(loc, opts.snapshot) : null;
    opts.beforeWrite?.(snap);
    if (loc.adopted) io.mkdir(dirs.adoptedDir, 0o700);
    const writes: FileWrite[] = planned.flatMap((f) => {
      if (f.content === null || f.content === undefined) return [];
      const mode = f.key === 'compose' ? (io.stat(f.path)?.mode ?? NEW_COMPOSE_MODE) : MODES[f.key];
      return [{ path: f.path, content: f.content, mode }];
    });
    if (writes.length > 0) io.write(writes, opts.afterRename ? { afterRename: opts.afterRename } : {});
    for (const f of planned) if (f.content === null) io.remove(f.path);
    sealNow(loc.name, opts.actor);
    return snap;
  }

  type RestoreOptions = Partial<Pick<WriteOptions, 'actor' | 'snapshot' | 'beforeWrite'>>;
  /**
   * Puts an app's files back as a snapshot holds them, with the seal they had. With `actor` the files are sealed as
   * theirs afterwards (an admin's restore, judged before); with `snapshot` the files as they are now are kept first.
   */
  function restore(loc: StackLocation, id: string, opts: RestoreOptions & { snapshot: string }): SnapshotT;
  function restore(loc: StackLocation, id: string, opts?: RestoreOptions): SnapshotT | null;
  function restore(loc: StackLocation, id: string, opts: RestoreOptions = {}): SnapshotT | null {
    const snap = opts.snapshot ? snapshots.take(loc, opts.snapshot) : null;
    opts.beforeWrite?.(snap);
    snapshots.restore(loc, id);
    if (opts.actor) sealNow(loc.name, opts.actor);
    return snap;
  }

  /**
   * A new app's folder: written into a temp folder and renamed into place (never half-written), then sealed as the
   * installing user's. Throws when the name is taken meanwhile.
   */
  function create(name: string, files: { compose: string; env: string; meta: string }, actor: Actor): StackLocation {
    const final = join(d.libraryDir, name);
    const tmp = join(d.libraryDir, `.tmp-${name}-${hex()}`);
    io.mkdir(tmp, 0o755);
    try {
      io.write([{ path: join(tmp, COMPOSE_FILE), content: files.compose, mode: NEW_COMPOSE_MODE }]);
      failpoint('install.temp');
      io.write([
        { path: join(tmp, ENV_FILE), content: files.env, mode: MODES.env },
        { path: join(tmp, META_FILE), content: files.meta, mode: MODES.meta },
      ]);
      if (io.kind(final) !== null) throw new Error(`'${final}' appeared while installing`);
      io.rename(tmp, final);
    } catch (err) {
      io.remove(tmp);
      throw err;
    }
    sealNow(name, actor);
    return dirs.locate(name);
  }

  /** Install temp folders a crash left (`which` says whose): removed; their names are returned. */
  function cleanInstallTemps(which: (app: string) => boolean): string[] {
    const gone = io
      .list(d.libraryDir)
      .map((e) => e.name)
      .filter((n) => {
        const m = INSTALL_TEMP.exec(n);
        return m?.[1] !== undefined && which(m[1]);
      });
    for (const n of gone) io.remove(join(d.libraryDir, n));
    return gone;
  }

  /**
   * A folder outside Kade's, about to be adopted: where it really is and what compose would read there. Null when it
   * does not exist.
   */
  function foreignFolder(path: string): { real: string; isDir: boolean; composeFile: string | null; compose: string; env: string } | null {
    const real = io.realpath(path);
    if (!real) return null;
    const isDir = io.stat(real)?.kind === 'dir';
    const composeFile = isDir ? dirs.composePath(real) : null;
    const text = (p: string | null) => (p ? (io.read(p)?.toString('utf8') ?? '') : '');
    return { real, isDir, composeFile, compose: text(composeFile), env: isDir ? text(join(real, ENV_FILE)) : '' };
  }

  /**
   * Adoption: LIBRARY_DIR/<name> becomes a link to the user's folder, the metadata goes to SVC_DATA/adopted (nothing in
   * their folder changes), and the folder's files are sealed as `actor`'s.
   */
  function adopt(name: string, folder: string, meta: string, actor: Actor): StackLocation {
    io.mkdir(dirs.adoptedDir, 0o700);
    const metaPath = dirs.adoptedMetaPath(name);
    io.write([{ path: metaPath, content: meta, mode: MODES.meta }]);
    try {
      io.symlink(folder, join(d.libraryDir, name));
    } catch (err) {
      io.remove(metaPath);
      throw err;
    }
    sealNow(name, actor);
    return dirs.locate(name);
  }

  /** Removes an app's folder (an adopted app: only the link and Kade's own files of it), snapshots and seal. */
  function remove(loc: StackLocation): void {
    if (loc.adopted) {
      io.remove(loc.path);
      io.remove(loc.metaPath);
      io.remove(dirs.adoptedOverridePath(loc.name));
    } else {
      io.remove(loc.dir);
    }
    snapshots.forget(loc.name);
    d.seals.forget(loc.name);
  }

  /** A compose text beside Kade's state as the app's compose file for `check`, removed afterwards (the editor's candidate). */
  async function withCandidate<T>(loc: StackLocation, content: string, check: (p: ComposeProject) => Promise<T>): Promise<T> {
    io.mkdir(tmpDir, 0o700);
    const candidate = join(tmpDir, `${loc.name}-${hex()}.yml`);
    io.write([{ path: candidate, content, mode: 0o600 }]);
    try {
      return await check({ ...plannedProject(loc), file: candidate });
    } finally {
      io.remove(candidate);
    }
  }

  const swap = {
    /** What a swap of the app's folder will move where (recorded by the job before the first move). */
    plan(name: string, tag: string): FolderSwap {
      const live = dirs.find(name)?.path ?? join(d.libraryDir, name);
      return { name, live, aside: join(d.libraryDir, `.aside-${name}-${tag}`), existed: io.stat(live) !== null, seal: d.seals.text(name) };
    },
    /** The app's folder goes aside (when there was one). */
    aside(s: FolderSwap): void {
      if (s.existed) io.rename(s.live, s.aside);
    },
    /** `staged` becomes the app's folder; its files are sealed as `actor`'s (judged before). */
    moveIn(s: FolderSwap, staged: string, actor: Actor): void {
      io.rename(staged, s.live);
      sealNow(s.name, actor);
    },
    /** The state before the swap, from the plan alone (also after a crash): the folder aside back, with its seal. */
    putBack(s: FolderSwap): void {
      if (io.kind(s.aside) !== null) {
        io.remove(s.live);
        io.rename(s.aside, s.live);
      } else if (!s.existed) io.remove(s.live);
      if (s.seal !== undefined) d.seals.putText(s.name, s.existed ? s.seal : null);
    },
    /** Once the swap succeeded: the folder aside goes. */
    done(s: FolderSwap): void {
      io.remove(s.aside);
    },
  };

  /** A relative link of an adopted app made absolute against the library it was written for (the path move's copy). */
  function absoluteLink(name: string, from: string): void {
    const path = join(d.libraryDir, name);
    const target = io.kind(path) === 'link' ? io.readlink(path) : null;
    if (target === null || isAbsolute(target)) return;
    io.remove(path);
    io.symlink(resolve(from, target), path);
  }

  return {
    libraryDir: d.libraryDir,
    find: dirs.find,
    locate: dirs.locate,
    meta: dirs.meta,
    project: dirs.project,
    plannedProject,
    names: dirs.names,
    adopted: dirs.adopted,
    adoptedPaths: dirs.adoptedPaths,
    /** Whether anything exists at LIBRARY_DIR/<name> (an install must not replace it). */
    taken: (name: string) => io.stat(join(d.libraryDir, name)) !== null,
    read,
    /** The `.env` text ('' when the app has none); parse it with env-file.ts. */
    envText: (loc: StackLocation) => read(loc, 'env') ?? '',
    composeDoc,
    write,
    restore,
    snapshots: { list: snapshots.list, texts: snapshots.texts },
    create,
    cleanInstallTemps,
    foreignFolder,
    realpath: (path: string) => io.realpath(path),
    adopt,
    remove,
    withCandidate,
    swap,
    absoluteLink,
    /** The app's seal as text (null: none), for a plan that must put it back after a crash. */
    sealText: (name: string) => d.seals.text(name),
    putSealText: (name: string, text: string | null) => d.seals.putText(name, text),
  };
}

export type StackStore = ReturnType<typeof createStackStore>;

/** A store on `io` with its own seals in SVC_DATA/seals (tests, and tools that build no compose gate). */
export function stackStoreOn(io: FolderIO, o: { libraryDir: string; stateDir: string; sealer?: StackStoreDeps['sealer']; clock?: () => Date }): StackStore {
  return createStackStore({
    io,
    libraryDir: o.libraryDir,
    stateDir: o.stateDir,
    seals: createSeals(io, join(o.stateDir, 'seals')),
    sealer: o.sealer ?? { seal: () => undefined },
    clock: o.clock ?? (() => new Date()),
  });
}
