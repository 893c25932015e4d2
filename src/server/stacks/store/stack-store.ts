import { join } from 'node:path';
import type { SnapshotT } from '../../../shared/stack-config.ts';
import { AppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import type { ComposeProject } from '../../engine/compose.ts';
import { createSeals, type Seals } from './file-seal.ts';
import type { FileWrite, FolderIO } from './folder-io.ts';
import { adoptedFolders, folderEnds, folderSwap, MODES, newFolders, type StoreParts } from './folder-ops.ts';
import { createSnapshots, type SnapshotKey } from './snapshots.ts';
import { createStackDirs, type StackLocation } from './stack-dir.ts';
import { COMPOSE_FILE, parseComposeDoc } from './stack-files.ts';

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

type RestoreOptions = Partial<Pick<WriteOptions, 'actor' | 'snapshot' | 'beforeWrite'>>;

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

/** Where each of an app's files is; only an adopted app has a network override. */
function targetsOf(dirs: StoreParts['dirs']) {
  return (loc: StackLocation): { key: SnapshotKey; path: string }[] => [
    { key: 'compose', path: loc.composeFile ?? join(loc.dir, COMPOSE_FILE) },
    { key: 'env', path: loc.envPath },
    { key: 'meta', path: loc.metaPath },
    ...(loc.adopted ? [{ key: 'override' as const, path: dirs.adoptedOverridePath(loc.name) }] : []),
  ];
}

/** Reads, writes and the return to a snapshot of an app's files in place. */
function fileOps(p: StoreParts) {
  const { io, dirs, snapshots } = p;
  const targets = targetsOf(dirs);
  const pathOf = (loc: StackLocation, key: SnapshotKey): string => {
    const t = targets(loc).find((x) => x.key === key);
    if (!t) throw new AppError('conflict', `app '${loc.name}' has no ${key} file: only an adopted app has one`, { params: { stack: loc.name } });
    return t.path;
  };
  /** The text of one of an app's files, or null when it has none. */
  const read = (loc: StackLocation, key: SnapshotKey): string | null =>
    key === 'compose' && !loc.composeFile ? null : (io.read(pathOf(loc, key))?.toString('utf8') ?? null);

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
      const mode = f.key === 'compose' ? (io.stat(f.path)?.mode ?? MODES.newCompose) : MODES[f.key];
      return [{ path: f.path, content: f.content, mode }];
    });
    if (writes.length > 0) io.write(writes, opts.afterRename ? { afterRename: opts.afterRename } : {});
    for (const f of planned) if (f.content === null) io.remove(f.path);
    p.sealNow(loc.name, opts.actor);
    return snap;
  }

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
    if (opts.actor) p.sealNow(loc.name, opts.actor);
    return snap;
  }

  return {
    read,
    /** The `.env` text ('' when the app has none); parse it with env-file.ts. */
    envText: (loc: StackLocation) => read(loc, 'env') ?? '',
    /** The compose file as a plain object ({} when missing or unreadable). */
    composeDoc: (loc: StackLocation): Record<string, unknown> => parseComposeDoc(read(loc, 'compose') ?? ''),
    write,
    restore,
  };
}

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
  const snapshots = createSnapshots({ io, root: join(d.stateDir, 'snapshots'), clock: d.clock, seals: d.seals, targets: targetsOf(dirs) });
  const parts: StoreParts = {
    io,
    libraryDir: d.libraryDir,
    stateDir: d.stateDir,
    seals: d.seals,
    dirs,
    snapshots,
    sealNow(name, actor) {
      const now = dirs.find(name);
      if (now?.composeFile) d.sealer.seal(dirs.project(now), actor);
    },
  };
  return {
    libraryDir: d.libraryDir,
    find: dirs.find,
    locate: dirs.locate,
    meta: dirs.meta,
    project: dirs.project,
    /** The app's compose project, also before its compose file exists (then docker-compose.yml, as Kade writes it). */
    plannedProject: (loc: StackLocation): ComposeProject => dirs.project({ ...loc, composeFile: loc.composeFile ?? join(loc.dir, COMPOSE_FILE) }),
    names: dirs.names,
    adopted: dirs.adopted,
    adoptedPaths: dirs.adoptedPaths,
    /** Whether anything exists at LIBRARY_DIR/<name> (an install must not replace it). */
    taken: (name: string) => io.stat(join(d.libraryDir, name)) !== null,
    /** Where a path really is (links resolved), or null when it does not exist. */
    realpath: (path: string) => io.realpath(path),
    ...fileOps(parts),
    snapshots: { list: snapshots.list, texts: snapshots.texts },
    ...newFolders(parts),
    ...adoptedFolders(parts),
    ...folderEnds(parts),
    swap: folderSwap(parts),
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
