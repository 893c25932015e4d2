/**
 * The registry of importers (issue #17): which formats an app folder or a repo can be in, and the detection that
 * picks one. Kade's own format comes first, so a folder with a template.json is never read as another store's.
 * Add an importer by listing it below; the catalogue, the report and `npm run templates:check` use these lists.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import { casaosImporter } from './casaos.ts';
import { cosmosImporter } from './cosmos.ts';
import { kadeImporter, plainComposeImporter } from './kade.ts';
import { portainerImporter } from './portainer.ts';
import { runtipiImporter } from './runtipi.ts';
import type { AppFolderImporter, ImportedApp, ImportFormat, ImportReport, Refusal, RepoFileImporter } from './types.ts';

/** Per app folder, in the order detection tries them. */
export const APP_FOLDER_IMPORTERS: AppFolderImporter[] = [
  kadeImporter,
  runtipiImporter,
  cosmosImporter,
  casaosImporter,
  // last: a compose file in no known format is a Kade app without its template.json (refused, with that reason)
  plainComposeImporter,
];

/** Per repo (one file for all apps), tried before the folders. */
export const REPO_FILE_IMPORTERS: RepoFileImporter[] = [portainerImporter];

/** The importer of one app folder, or null when the folder is no app (docs, scripts, assets). */
export const detectFolder = (dir: string): AppFolderImporter | null => APP_FOLDER_IMPORTERS.find((i) => i.detect(dir)) ?? null;

export interface ImportedEntry extends ImportedApp {
  format: ImportFormat;
  /** The app's folder (for Kade's own format and the folder formats); the repo root for a repo file. */
  dir: string;
}

export interface TreeImport {
  apps: ImportedEntry[];
  refused: Refusal[];
  report: ImportReport;
}

function reportOf(formats: Set<ImportFormat>, apps: number, refused: Refusal[]): ImportReport {
  const list = [...formats];
  const format = list.length === 1 ? (list[0] as ImportFormat) : list.length === 0 ? 'kade' : 'mixed';
  return { format, found: apps + refused.length, imported: apps, refused };
}

/** The first line of a failure: what is wrong, without the parser context that may follow. */
const reasonOf = (err: unknown) => errorMessage(err).split('\n')[0]?.trim() || 'could not be read';

/**
 * Every app of a repo checkout: a repo file (Portainer) in `appsDir` or the repo root, else each folder of
 * `appsDir` through the importer its files point to. Ids are unique: a second app of the same id is refused.
 */
export function importTree(appsDir: string, root: string = appsDir): TreeImport {
  for (const imp of REPO_FILE_IMPORTERS) {
    const file = imp.detect(appsDir) ?? (root !== appsDir ? imp.detect(root) : null);
    if (file === null) continue;
    try {
      const { apps, refused } = imp.importAll(root, file);
      const entries = apps.map((a) => ({ ...a, format: imp.format, dir: root }));
      return { apps: entries, refused, report: reportOf(new Set([imp.format]), entries.length, refused) };
    } catch (err) {
      const refused = [{ app: '', reason: reasonOf(err) }];
      return { apps: [], refused, report: reportOf(new Set([imp.format]), 0, refused) };
    }
  }
  let names: string[];
  try {
    names = readdirSync(appsDir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    const refused = [{ app: '', reason: 'the apps folder (subdirectory) was not found in the repo' }];
    return { apps: [], refused, report: reportOf(new Set(), 0, refused) };
  }
  const apps: ImportedEntry[] = [];
  const refused: Refusal[] = [];
  const formats = new Set<ImportFormat>();
  const ids = new Map<string, string>();
  for (const name of names) {
    const dir = join(appsDir, name);
    const imp = detectFolder(dir);
    if (!imp) continue;
    formats.add(imp.format);
    try {
      const app = imp.importApp(dir, name);
      const before = ids.get(app.id);
      if (before !== undefined) {
        refused.push({ app: name, reason: `its id '${app.id}' is the id of the app in folder '${before}' already` });
        continue;
      }
      ids.set(app.id, name);
      apps.push({ ...app, format: imp.format, dir });
    } catch (err) {
      refused.push({ app: name, reason: reasonOf(err) });
    }
  }
  apps.sort((a, b) => a.id.localeCompare(b.id));
  refused.sort((a, b) => a.app.localeCompare(b.app));
  return { apps, refused, report: reportOf(formats, apps.length, refused) };
}
