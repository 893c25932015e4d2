/**
 * For the importers' tests: an imported app rendered the way an install renders it (defaults, generated secrets,
 * Kade's pre-fills), and the result judged by the compose CLI itself (`config -q` through the Compose port; no engine needed).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { FieldValue } from '../../../shared/template.ts';
import { lintApp } from '../../templates/lint.ts';
import { allFields, renderTemplate } from '../../templates/render.ts';
import { resolveValues } from '../../templates/values.ts';
import { composeCheck } from './check.ts';
import type { ImportedApp } from './types.ts';

export const DATA_DIR = '/srv/kade-data';

export interface Rendered {
  compose: string;
  env: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: a parsed compose document, read by the tests
  doc: any;
}

/** Renders with the defaults (and `values` over them), as an install named after the app's id would. */
export function renderDefaults(app: ImportedApp, values: Record<string, FieldValue> = {}): Rendered {
  const resolved = resolveValues(app.template, values, { dataDir: DATA_DIR, uid: 4242, gid: 4243, name: app.id });
  const out = renderTemplate({ template: app.template, compose: app.compose, values: resolved, timezone: 'Europe/Amsterdam' });
  return { compose: out.compose, env: out.env, doc: parse(out.compose) };
}

/** Null when the compose CLI accepts the rendered file, else what it said (check.ts's `config -q` through the Compose port). */
export const composeProblem = (r: Rendered, name: string): Promise<string | null> => composeCheck(name, r.compose, r.env);

/** A copy of a fixture repo as a git checkout of `origin` would look to the importer (only `.git/config`). */
export function checkoutOf(fixture: string, origin: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kade-import-repo-'));
  cpSync(fixture, dir, { recursive: true });
  mkdirSync(join(dir, '.git'));
  writeFileSync(join(dir, '.git', 'config'), `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${origin}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`);
  return dir;
}

/** The errors Kade's template lint finds in an imported app (an app without any field has none to show: not counted). */
export function lintErrors(app: ImportedApp): string[] {
  const dir = join(mkdtempSync(join(tmpdir(), 'kade-import-lint-')), app.id);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'template.json'), JSON.stringify(app.template));
    writeFileSync(join(dir, 'docker-compose.yml'), app.compose);
    const none = allFields(app.template).length === 0;
    return lintApp(dir, app.id)
      .filter((f) => f.level === 'error' && !(none && f.rule === 'visible-field'))
      .map((f) => `${f.rule}: ${f.message}`);
  } finally {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }
}
