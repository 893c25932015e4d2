import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { englishText, type FieldValue, type TemplateFileT } from '../../shared/template.ts';
import { categoriesOf } from '../catalogue/derive-categories.ts';
import { failpoint } from '../core/failpoint.ts';
import { writeFileAtomic } from '../core/fs-atomic.ts';
import { allFields, type RenderOutput, renderTemplate } from '../templates/render.ts';
import { type PrefillContext, resolveValues } from '../templates/values.ts';
import { type EnvDialect, mergeEnv } from './env-file.ts';
import { COMPOSE_FILE, ENV_FILE, META_FILE, type StackMetaT } from './stack-files.ts';

export interface PreparedInstall {
  name: string;
  render: RenderOutput;
  meta: StackMetaT;
  secrets: string[];
  /** The resolved form values the template was rendered with. */
  values: Record<string, FieldValue>;
}

/** Resolves and renders everything before any directory exists, so bad input leaves nothing behind. */
export function prepareInstall(input: {
  name: string;
  source: { repo: string; app: string; commit: string | null };
  template: TemplateFileT;
  compose: string;
  values: Record<string, FieldValue>;
  prefill: PrefillContext;
  timezone: string;
  now: Date;
}): PreparedInstall {
  const { template } = input;
  const values = resolveValues(template, input.values, { ...input.prefill, name: input.name });
  const render = renderTemplate({ template, compose: input.compose, values, timezone: input.timezone });
  const meta: StackMetaT = {
    ...templateMeta(template, values, render),
    format: 1,
    source: input.source,
    services: {},
    networks: [],
    installed_at: input.now.toISOString(),
  };
  return { name: input.name, render, meta, secrets: secretValues(template, values), values };
}

/** The parts of `.svc.json` that follow from the template and the form values; never a secret. */
export function templateMeta(template: TemplateFileT, values: Record<string, FieldValue>, render: RenderOutput) {
  const secretIds = new Set(
    allFields(template)
      .filter((f) => f.secret)
      .map((f) => f.id),
  );
  const publicValues: Record<string, FieldValue> = {};
  const types: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    types[k] = typeof v;
    if (!secretIds.has(k)) publicValues[k] = v;
  }
  const web = template.web;
  const webPort = web ? (web.port_field ? Number(values[web.port_field]) : (web.port ?? NaN)) : NaN;
  return {
    values: publicValues,
    value_types: types,
    secret_env: render.secretEnv,
    web: web && Number.isInteger(webPort) ? { scheme: web.scheme, port: webPort, path: web.path } : null,
    categories: categoriesOf(template.metadata.categories, template.tags, englishText(template.description)),
    template_version: template.version,
  };
}

/** The secret values of a form, for masking them in job logs. */
export const secretValues = (template: TemplateFileT, values: Record<string, FieldValue>): string[] =>
  allFields(template)
    .filter((f) => f.secret)
    .map((f) => String(values[f.id] ?? ''))
    .filter((s) => s.length > 0);

/** Writes the stack folder into a temp folder first and renames it into place: never half-written. */
export function writeStackDir(libraryDir: string, p: PreparedInstall, dialect: EnvDialect): string {
  const final = join(libraryDir, p.name);
  const tmp = join(libraryDir, `.tmp-${p.name}-${randomBytes(4).toString('hex')}`);
  mkdirSync(tmp, { mode: 0o755 });
  try {
    writeFileAtomic(join(tmp, COMPOSE_FILE), p.render.compose, 0o644);
    failpoint('install.temp');
    writeFileAtomic(join(tmp, ENV_FILE), mergeEnv('', p.render.env, new Set(), dialect), 0o600);
    writeFileAtomic(join(tmp, META_FILE), `${JSON.stringify(p.meta, null, 2)}\n`, 0o600);
    if (existsSync(final)) throw new Error(`'${final}' appeared while installing`);
    renameSync(tmp, final);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return final;
}
