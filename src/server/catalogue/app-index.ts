import { join } from 'node:path';
import type { StorePowerT } from '../../shared/powers.ts';
import type { FieldValue, TemplateFileT } from '../../shared/template.ts';
import { errorMessage } from '../core/errors.ts';
import { templatePowers } from '../templates/app-powers.ts';
import { readRegularFile } from '../templates/load.ts';
import { allFields, renderTemplate } from '../templates/render.ts';
import { toggleId } from '../templates/values.ts';
import { importTree } from './import/importers.ts';
import type { ImportFormat, ImportReport } from './import/types.ts';

export interface IndexedApp {
  repo: string;
  app: string;
  template: TemplateFileT;
  /** The compose template: Kade's own file, or what an importer made of another store's app. */
  compose: string;
  format: ImportFormat;
  /** The app's folder in the cache. */
  dir: string;
  /** What the importer dropped or mapped (empty for Kade's own format). */
  notes: string[];
  /** The powers over the host the app gets with the values its form starts with (templates/app-powers.ts), for the store's badge. */
  powers: StorePowerT[];
  /** Files the app's folder gets beside its compose file (an imported store's inline configs; none for Kade's own). */
  files: Record<string, string>;
}

/** An app folder left out of the store, and why; `app` is '' when the apps folder itself is missing. */
export interface SkippedApp {
  app: string;
  reason: string;
}

export interface RepoIndex {
  apps: IndexedApp[];
  skipped: SkippedApp[];
  /** The import report of the repo (GET /api/repos/<id>). */
  /** `with_powers`: the apps imported with powers over the host, which only an admin installs. */
  report: ImportReport & { notes: NonNullable<ImportReport['notes']>; with_powers: number };
}

/** Renders an app once with stand-in values, so a compose file that cannot render is caught here, not at install. */
function checkRenders(template: TemplateFileT, compose: string): void {
  const values: Record<string, FieldValue> = {};
  for (const f of allFields(template)) values[f.id] = `kadecheck${f.id.replace(/_/g, 'x')}`;
  for (const g of template.groups) if (g.toggle) values[toggleId(g.id)] = true;
  renderTemplate({ template, compose, values, timezone: 'UTC' });
}

/**
 * Reads every app of one repo cache in whatever format it is (import/importers.ts); an app that cannot be mapped
 * or fails validation is listed with its reason, never dropped silently.
 */
export function indexRepo(repoId: string, appsDir: string, root: string = appsDir): RepoIndex {
  const tree = importTree(appsDir, root);
  const apps: IndexedApp[] = [];
  const skipped: SkippedApp[] = [...tree.refused];
  for (const a of tree.apps) {
    try {
      checkRenders(a.template, a.compose);
      apps.push({
        repo: repoId,
        app: a.id,
        template: a.template,
        compose: a.compose,
        format: a.format,
        dir: a.dir,
        notes: a.notes,
        powers: templatePowers(a.template, a.compose),
        files: a.files ?? {},
      });
    } catch (err) {
      // The first line says what is wrong; the rest is parser context with internal stand-ins.
      skipped.push({ app: a.id, reason: errorMessage(err).split('\n')[0]?.trim() ?? '' });
    }
  }
  skipped.sort((a, b) => a.app.localeCompare(b.app));
  const notes = apps.filter((a) => a.notes.length > 0).map((a) => ({ app: a.app, notes: a.notes }));
  const report = { ...tree.report, imported: apps.length, refused: skipped, notes, with_powers: apps.filter((a) => a.powers.length > 0).length };
  return { apps, skipped, report };
}

/** The VERSION file at the root of a repo cache, when there is one. */
export function readCacheVersion(cacheDir: string): string | null {
  try {
    return readRegularFile(join(cacheDir, 'VERSION'), 100)?.trim() || null;
  } catch {
    return null;
  }
}
