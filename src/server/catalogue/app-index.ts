import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isSafeName } from '../../shared/names.ts';
import type { TemplateFileT } from '../../shared/template.ts';
import { errorMessage } from '../core/errors.ts';
import { loadTemplate, readRegularFile } from '../templates/load.ts';

export interface IndexedApp {
  repo: string;
  app: string;
  template: TemplateFileT;
}

export interface RepoIndex {
  apps: IndexedApp[];
  errors: { app: string; error: string }[];
}

/** Reads every app template of one repo cache; a broken template is reported, not fatal. */
export function indexRepo(repoId: string, appsDir: string): RepoIndex {
  const apps: IndexedApp[] = [];
  const errors: RepoIndex['errors'] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(appsDir, { withFileTypes: true });
  } catch {
    return { apps, errors: [{ app: '', error: `folder '${appsDir}' not found in the repo` }] };
  }
  for (const e of entries) {
    if (!e.isDirectory() || !isSafeName(e.name)) continue;
    try {
      apps.push({ repo: repoId, app: e.name, template: loadTemplate(join(appsDir, e.name), e.name).template });
    } catch (err) {
      errors.push({ app: e.name, error: errorMessage(err) });
    }
  }
  apps.sort((a, b) => a.app.localeCompare(b.app));
  return { apps, errors };
}

/** The VERSION file at the root of a repo cache, when there is one. */
export function readCacheVersion(cacheDir: string): string | null {
  try {
    return readRegularFile(join(cacheDir, 'VERSION'), 100)?.trim() || null;
  } catch {
    return null;
  }
}
