// The contract between the catalogue and the importers of other stores' formats (issue #17).
// An importer reads one app folder (or, for Portainer, one templates file for the whole repo)
// and maps it onto Kade's own template: template.json's schema plus a compose template in
// Kade's syntax. No imported text is ever evaluated as Kade template syntax: an importer escapes
// every `{{` of the source and emits placeholders only for the variables it mapped itself.
import { STORE_FORMATS } from '../../../shared/api.ts';
import type { TemplateFileT } from '../../../shared/template.ts';

export const IMPORT_FORMATS = STORE_FORMATS;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportedApp {
  /** The app's id in the catalogue: a valid Kade app name derived from the source. */
  id: string;
  template: TemplateFileT;
  /** The compose template, in Kade's template syntax. */
  compose: string;
  /** Store-specific parts dropped or mapped (e.g. "traefik labels dropped"), for the report. */
  notes: string[];
  /**
   * Files the app's folder holds beside its compose file, by path relative to it (`configs/<name>`): the store's
   * inline configs, which the compose file binds read-only. The install writes them with the compose file.
   */
  files?: Record<string, string>;
}

export interface Refusal {
  app: string;
  reason: string;
}

/** One app folder's format. */
export interface AppFolderImporter {
  format: Exclude<ImportFormat, 'portainer'>;
  /** True when the folder holds an app in this format (cheap: file names, no parsing beyond need). */
  detect(dir: string): boolean;
  /** Maps the app; throws AppError('template_invalid') whose message is the refusal reason. */
  importApp(dir: string, id: string): ImportedApp;
}

/** A repo-wide format (Portainer's app templates file). */
export interface RepoFileImporter {
  format: 'portainer';
  /** The templates file of the repo root, or null when the repo is not in this format. */
  detect(root: string): string | null;
  /** Every app of the file; stack files of type 3 are read from `root`. */
  importAll(root: string, file: string): { apps: ImportedApp[]; refused: Refusal[] };
}

/** What GET /api/repos/<id> reports as `import`. */
export interface ImportReport {
  format: ImportFormat | 'mixed';
  found: number;
  imported: number;
  refused: Refusal[];
  /** What was dropped or mapped per imported app (traefik labels, the store's network…); filled by the catalogue. */
  notes?: { app: string; notes: string[] }[];
}
