/**
 * `npm run templates:check`'s work, without Kade's server or database: import every app of a folder (or a
 * Portainer templates file), render each as an install with its defaults would (stand-in values for required
 * fields without one), and let the compose CLI judge the result (`config -q`, v2 or else v1), two at a time.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { FieldValue, TemplateFileT } from '../../../shared/template.ts';
import { parseEngineEndpoint } from '../../config/config.ts';
import { errorMessage } from '../../core/errors.ts';
import type { Compose } from '../../engine/compose.ts';
import { createComposeCli } from '../../engine/compose-cli.ts';
import { templatePowers } from '../../templates/app-powers.ts';
import { allFields, renderTemplate } from '../../templates/render.ts';
import { resolveValues } from '../../templates/values.ts';
import { standIn as fieldStandIn, rulesOf } from './check-stand-in.ts';
import { detectFolder, type ImportedEntry, importTree, REPO_FILE_IMPORTERS, type TreeImport } from './importers.ts';

export const CHECK_DATA_DIR = '/srv/kade-data';

/** Imports what `path` holds: a folder of app folders, one app folder, a store with an `Apps/` folder, or a repo file. */
export function importPath(path: string): TreeImport {
  if (statSync(path).isFile()) {
    for (const imp of REPO_FILE_IMPORTERS) {
      const root = dirname(path);
      if (imp.detect(root) === null && !path.endsWith('.json')) continue;
      const { apps, refused } = imp.importAll(root, path);
      return {
        apps: apps.map((a) => ({ ...a, format: imp.format, dir: root })),
        refused,
        report: { format: imp.format, found: apps.length + refused.length, imported: apps.length, refused },
      };
    }
    throw new Error(`${path} is not a templates file of a known format`);
  }
  const single = detectFolder(path);
  if (single && !existsSync(join(path, 'Apps'))) {
    try {
      const app = single.importApp(path, basename(path));
      return { apps: [{ ...app, format: single.format, dir: path }], refused: [], report: { format: single.format, found: 1, imported: 1, refused: [] } };
    } catch (err) {
      const refused = [{ app: basename(path), reason: errorMessage(err).split('\n')[0] ?? '' }];
      return { apps: [], refused, report: { format: single.format, found: 1, imported: 0, refused } };
    }
  }
  const tree = importTree(path);
  // CasaOS's and Runtipi's stores keep their apps one folder down.
  for (const sub of ['Apps', 'apps']) {
    if (tree.report.found === 0 && existsSync(join(path, sub))) return importTree(join(path, sub), path);
  }
  return tree;
}

/** A value for a required field that has none: what a user would plausibly type that its rules accept, else null. */
function standIn(t: TemplateFileT, id: string, n: number): FieldValue | null {
  const f = allFields(t).find((x) => x.id === id);
  // A connect field holds another app's address, as the install form offers it.
  if (f?.connect) return `${f.connect.scheme}://host.docker.internal:${f.connect.port}`;
  return f ? fieldStandIn(f, n, CHECK_DATA_DIR) : 'kadecheck';
}

/** An app that renders only once a person types a value: no stand-in passes the rules of a required field. */
export class NeedsInput extends Error {
  constructor(readonly fields: string[]) {
    super(fields.join('; '));
  }
}

/** The app rendered as an install named after its id would render it; NeedsInput when a required field has no stand-in. */
export function renderWithDefaults(app: ImportedEntry, given: Record<string, FieldValue> = {}): { compose: string; env: Record<string, string> } {
  const ctx = { dataDir: CHECK_DATA_DIR, uid: 1000, gid: 1000, name: app.id };
  const values: Record<string, FieldValue> = { ...given };
  let n = 0;
  for (let round = 0; round < 2; round++) {
    try {
      const resolved = resolveValues(app.template, values, ctx);
      const out = renderTemplate({ template: app.template, compose: app.compose, values: resolved, timezone: 'UTC' });
      return { compose: out.compose, env: out.env };
    } catch (err) {
      const missing = (err as { fields?: string[] }).fields;
      if (round > 0 || (err as { code?: string }).code !== 'required_fields' || !missing) throw err;
      const asks: string[] = [];
      for (const id of missing) {
        const v = standIn(app.template, id, n++);
        const f = allFields(app.template).find((x) => x.id === id);
        if (v === null) asks.push(`${id} (no made-up value passes: ${f ? rulesOf(f) : 'a value'})`);
        else values[id] = v;
      }
      if (asks.length) throw new NeedsInput(asks);
    }
  }
  throw new Error('unreachable');
}

let local: Compose | null = null;
/** The compose CLI on the default engine endpoint: `config -q` reads files only, it never talks to an engine. */
function localCompose(): Compose {
  local ??= createComposeCli(parseEngineEndpoint(undefined));
  return local;
}

/**
 * Null when `config -q` accepts the file (`yaml` with its `.env` and the app's other files, as an install writes
 * them), else the last line compose said.
 */
export async function composeCheck(
  name: string,
  yaml: string,
  env: Record<string, string>,
  compose = localCompose(),
  files: Record<string, string> = {},
): Promise<string | null> {
  const dir = mkdtempSync(join(tmpdir(), 'kade-check-'));
  const file = join(dir, 'docker-compose.yml');
  try {
    writeFileSync(file, yaml);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    writeFileSync(
      join(dir, '.env'),
      Object.entries(env)
        .map(([k, v]) => `${k}='${v.replace(/'/g, '')}'\n`)
        .join(''),
    );
    await compose.validate({ name: name.replace(/[^a-z0-9_-]/g, '') || 'app', dir, file });
    return null;
  } catch (err) {
    return (
      errorMessage(err)
        .replace(/^the compose file is not valid: /, '')
        .trim()
        .split('\n')
        .pop()
        ?.trim() || errorMessage(err)
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `fn` over `items`, `size` at a time. */
export async function pool<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, worker));
  return out;
}

export interface CheckResult {
  found: number;
  imported: number;
  valid: number;
  /** Apps that render only with a value a person types (no stand-in passes a required field's rules): not invalid. */
  needsInput: number;
  /** Imported apps with powers over the host (templates/app-powers.ts): only an admin installs them, allowing each. */
  withPowers: number;
  /** One line per app that was refused, needs input, did not render, or that compose did not accept. */
  failures: string[];
}

/** Checks every app of `path`; `compose` judges the rendered files (the CLI on the default endpoint unless given). */
export async function checkPath(path: string, opts: { compose?: Compose; parallel?: number } = {}): Promise<CheckResult> {
  const parallel = opts.parallel ?? Math.min(2, availableParallelism());
  const tree = importPath(path);
  const failures = tree.refused.map((r) => `${r.app || '(repo)'}: not imported: ${r.reason}`);
  let needsInput = 0;
  const results = await pool(tree.apps, parallel, async (app) => {
    let rendered: { compose: string; env: Record<string, string> };
    try {
      rendered = renderWithDefaults(app);
    } catch (err) {
      if (err instanceof NeedsInput) {
        needsInput++;
        return `${app.id}: needs input: ${err.message}`;
      }
      return `${app.id}: does not render: ${errorMessage(err).split('\n')[0]}`;
    }
    const problem = await composeCheck(app.id, rendered.compose, rendered.env, opts.compose, app.files);
    return problem === null ? null : `${app.id}: compose config: ${problem}`;
  });
  for (const r of results) if (r) failures.push(r);
  const withPowers = tree.apps.filter((a) => templatePowers(a.template, a.compose).length > 0).length;
  return { found: tree.report.found, imported: tree.apps.length, valid: results.filter((r) => r === null).length, needsInput, withPowers, failures };
}
