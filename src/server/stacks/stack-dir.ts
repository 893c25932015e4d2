import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isSafeName } from '../../shared/names.ts';
import { AppError, notFound } from '../core/errors.ts';
import type { ComposeProject } from '../engine/compose.ts';
import { composePath, ENV_FILE, META_FILE, readMeta, type StackMetaT } from './stack-files.ts';

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

export function createStackDirs(libraryDir: string, stateDir: string) {
  const adoptedDir = join(stateDir, 'adopted');
  const adoptedMetaPath = (name: string) => join(adoptedDir, `${name}.json`);
  /** The shared networks of an adopted app, as a compose file read after the user's own (never written into their folder). */
  const adoptedOverridePath = (name: string) => join(adoptedDir, `${name}.networks.yml`);

  /** Null when no app of that name exists; the name must have been checked. */
  function find(name: string): StackLocation | null {
    const path = join(libraryDir, name);
    let link: boolean;
    try {
      link = lstatSync(path).isSymbolicLink();
    } catch {
      return null;
    }
    if (!link) return { name, path, adopted: false, dir: path, metaPath: join(path, META_FILE), envPath: join(path, ENV_FILE), composeFile: composePath(path) };
    let dir: string;
    try {
      dir = realpathSync(path);
    } catch {
      dir = resolve(libraryDir, readlinkSync(path));
    }
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
    return { name, stack: loc.name, dir: loc.dir, file: loc.composeFile, ...(override && existsSync(override) ? { overrides: [override] } : {}) };
  }

  /**
   * Every adopted app, located. Only an adopted app is a link in LIBRARY_DIR, and the folder's own listing tells
   * links from folders: with hundreds of apps, locating each one took tens of milliseconds.
   */
  function adopted(): StackLocation[] {
    let links: string[];
    try {
      links = readdirSync(libraryDir, { withFileTypes: true })
        .filter((e) => e.isSymbolicLink() && isSafeName(e.name))
        .map((e) => e.name);
    } catch {
      return [];
    }
    return links.flatMap((name) => {
      const loc = find(name);
      return loc?.adopted ? [loc] : [];
    });
  }

  /** Every adopted app with the folder it refers to. */
  const adoptedPaths = (): { name: string; path: string }[] => adopted().map((loc) => ({ name: loc.name, path: loc.dir }));

  return { libraryDir, adoptedDir, adoptedMetaPath, adoptedOverridePath, find, locate, meta, project, adopted, adoptedPaths };
}

export type StackDirs = ReturnType<typeof createStackDirs>;
