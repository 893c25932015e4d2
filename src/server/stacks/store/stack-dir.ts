import { join, resolve } from 'node:path';
import { isSafeName } from '../../../shared/names.ts';
import { AppError, notFound } from '../../core/errors.ts';
import type { ComposeProject } from '../../engine/compose.ts';
import type { FolderIO } from './folder-io.ts';
import { COMPOSE_NAMES, ENV_FILE, META_FILE, StackMeta, type StackMetaT } from './stack-files.ts';

/**
 * Where one app's files are. An installed app is a folder under LIBRARY_DIR holding compose file,
 * `.env` and `.svc.json`. An adopted app is a link under LIBRARY_DIR to the user's own folder: Kade
 * never writes into that folder on its own, so its metadata lives in SVC_DATA/adopted/<name>.json.
 */
export interface StackLocation {
  name: string;
  /** LIBRARY_DIR/<name>: the folder, or the link of an adopted app. */
  path: string;
  adopted: boolean;
  /** The folder compose runs in: the link's target for an adopted app. */
  dir: string;
  metaPath: string;
  envPath: string;
  /** The compose file, or null when the folder has none. */
  composeFile: string | null;
}

export function checkName(name: string): void {
  if (!isSafeName(name)) {
    throw new AppError('invalid_name', `'${name}' is not a valid name: use lower-case letters, digits, _ and -`, { params: { name }, fields: ['name'] });
  }
}

/** The metadata parsed once per change of the file (its stamp), so the list endpoints never re-parse unchanged files. */
function metaCache(io: FolderIO) {
  const cache = new Map<string, { stamp: string; value: StackMetaT | null }>();
  return (path: string): StackMetaT | null => {
    const st = io.stat(path);
    if (st?.kind !== 'file') {
      cache.delete(path);
      return null;
    }
    const hit = cache.get(path);
    if (hit?.stamp === st.stamp) return hit.value;
    let value: StackMetaT | null;
    try {
      const r = StackMeta.safeParse(JSON.parse(io.read(path)?.toString('utf8') ?? ''));
      value = r.success ? r.data : null;
    } catch {
      value = null;
    }
    cache.set(path, { stamp: st.stamp, value });
    return value;
  };
}

/** The apps' locations in `libraryDir`, read through the stack store's `io` (stacks/store/). */
export function createStackDirs(io: FolderIO, libraryDir: string, stateDir: string) {
  const adoptedDir = join(stateDir, 'adopted');
  const adoptedMetaPath = (name: string) => join(adoptedDir, `${name}.json`);
  /** The shared networks of an adopted app, as a compose file read after the user's own (never written into their folder). */
  const adoptedOverridePath = (name: string) => join(adoptedDir, `${name}.networks.yml`);
  const readMeta = metaCache(io);

  /** The compose file compose picks in a folder, or null when it has none. */
  function composePath(dir: string): string | null {
    for (const n of COMPOSE_NAMES) if (io.stat(join(dir, n))) return join(dir, n);
    return null;
  }

  /** Null when no app of that name exists; the name must have been checked. */
  function find(name: string): StackLocation | null {
    const path = join(libraryDir, name);
    const kind = io.kind(path);
    if (kind === null) return null;
    if (kind !== 'link')
      return { name, path, adopted: false, dir: path, metaPath: join(path, META_FILE), envPath: join(path, ENV_FILE), composeFile: composePath(path) };
    const dir = io.realpath(path) ?? resolve(libraryDir, io.readlink(path) ?? name);
    return { name, path, adopted: true, dir, metaPath: adoptedMetaPath(name), envPath: join(dir, ENV_FILE), composeFile: composePath(dir) };
  }

  function locate(name: string): StackLocation {
    checkName(name);
    const loc = find(name);
    if (!loc) throw notFound('app', name);
    return loc;
  }

  const meta = (loc: StackLocation): StackMetaT | null => readMeta(loc.metaPath);

  /** The compose project of an app: an adopted app keeps the project name its containers carry. */
  function project(loc: StackLocation): ComposeProject {
    if (!loc.composeFile) throw new AppError('conflict', `app '${loc.name}' has no compose file`, { params: { stack: loc.name } });
    const name = loc.adopted ? (meta(loc)?.adopted?.project ?? loc.name) : loc.name;
    const override = loc.adopted ? adoptedOverridePath(loc.name) : null;
    return { name, stack: loc.name, dir: loc.dir, file: loc.composeFile, ...(override && io.stat(override) ? { overrides: [override] } : {}) };
  }

  /**
   * The apps' names: folders under LIBRARY_DIR, and links to folders (adopted apps). The folder's own listing tells
   * folders from links, so only a link needs a look at its target.
   */
  const names = (): string[] =>
    io
      .list(libraryDir)
      .filter((e) => isSafeName(e.name) && (e.kind === 'dir' || (e.kind === 'link' && io.stat(join(libraryDir, e.name))?.kind === 'dir')))
      .map((e) => e.name)
      .sort();

  /**
   * Every adopted app, located. Only an adopted app is a link in LIBRARY_DIR, and the folder's own listing tells
   * links from folders: with hundreds of apps, locating each one took tens of milliseconds.
   */
  function adopted(): StackLocation[] {
    return io
      .list(libraryDir)
      .filter((e) => e.kind === 'link' && isSafeName(e.name))
      .flatMap((e) => {
        const loc = find(e.name);
        return loc?.adopted ? [loc] : [];
      });
  }

  /** Every adopted app with the folder it refers to. */
  const adoptedPaths = (): { name: string; path: string }[] => adopted().map((loc) => ({ name: loc.name, path: loc.dir }));

  return { libraryDir, adoptedDir, adoptedMetaPath, adoptedOverridePath, composePath, find, locate, meta, project, names, adopted, adoptedPaths };
}

/** Everything createStackDirs answers (the stack store's own view). */
export type StackDirsAll = ReturnType<typeof createStackDirs>;

/** What the read side (listing, app list, containers) knows of the apps' locations; the stack store is one. */
export type StackDirs = Pick<ReturnType<typeof createStackDirs>, 'libraryDir' | 'find' | 'locate' | 'meta' | 'project' | 'names' | 'adopted' | 'adoptedPaths'>;
