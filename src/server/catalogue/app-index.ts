import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isSafeName } from '../../shared/names.ts';
import type { FieldValue, TemplateFileT } from '../../shared/template.ts';
import { errorMessage } from '../core/errors.ts';
import { COMPOSE_TEMPLATE_NAMES, loadTemplate, readRegularFile } from '../templates/load.ts';
import { allFields, renderTemplate } from '../templates/render.ts';
import { toggleId } from '../templates/values.ts';

export interface IndexedApp {
  repo: string;
  app: string;
  template: TemplateFileT;
}

/** An app folder left out of the store, and why; `app` is '' when the apps folder itself is missing. */
export interface SkippedApp {
  app: string;
  reason: string;
}

export interface RepoIndex {
  apps: IndexedApp[];
  skipped: SkippedApp[];
}

/** A folder that tries to be an app: it holds a template.json or a compose file. Others (docs, scripts) are not apps. */
function looksLikeApp(dir: string): boolean {
  return ['template.json', ...COMPOSE_TEMPLATE_NAMES].some((f) => existsSync(join(dir, f)));
}

/** Loads one app and renders it once with stand-in values, so a compose file that cannot render is caught here, not at install. */
function readApp(dir: string, app: string): TemplateFileT {
  const { template, compose } = loadTemplate(dir, app);
  const values: Record<string, FieldValue> = {};
  for (const f of allFields(template)) values[f.id] = `kadecheck${f.id.replace(/_/g, 'x')}`;
  for (const g of template.groups) if (g.toggle) values[toggleId(g.id)] = true;
  renderTemplate({ template, compose, values, timezone: 'UTC' });
  return template;
}

/** Reads every app template of one repo cache; a template that fails validation is listed with its reason, not dropped silently. */
export function indexRepo(repoId: string, appsDir: string): RepoIndex {
  const apps: IndexedApp[] = [];
  const skipped: SkippedApp[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(appsDir, { withFileTypes: true });
  } catch {
    return { apps, skipped: [{ app: '', reason: 'the apps folder (subdirectory) was not found in the repo' }] };
  }
  for (const e of entries) {
    if (!e.isDirectory() || e.name.startsWith('.') || !looksLikeApp(join(appsDir, e.name))) continue;
    if (!isSafeName(e.name)) {
      skipped.push({ app: e.name, reason: 'the folder name is not a safe app id (lower-case letters, digits, _ and -, at most 63)' });
      continue;
    }
    try {
      apps.push({ repo: repoId, app: e.name, template: readApp(join(appsDir, e.name), e.name) });
    } catch (err) {
      // The first line says what is wrong; the rest is parser context with internal stand-ins.
      skipped.push({ app: e.name, reason: errorMessage(err).split('\n')[0]?.trim() ?? '' });
    }
  }
  apps.sort((a, b) => a.app.localeCompare(b.app));
  skipped.sort((a, b) => a.app.localeCompare(b.app));
  return { apps, skipped };
}

/** The VERSION file at the root of a repo cache, when there is one. */
export function readCacheVersion(cacheDir: string): string | null {
  try {
    return readRegularFile(join(cacheDir, 'VERSION'), 100)?.trim() || null;
  } catch {
    return null;
  }
}
