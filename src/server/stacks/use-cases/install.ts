import { englishText, type FieldValue, type TemplateFileT } from '../../../shared/template.ts';
import { categoriesOf } from '../../catalogue/derive-categories.ts';
import { allFields, type RenderOutput, renderTemplate } from '../../templates/render.ts';
import { type PrefillContext, resolveValues } from '../../templates/values.ts';
import { type EnvDialect, mergeEnv } from '../store/env-file.ts';
import type { StackMetaT } from '../store/stack-files.ts';

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

/** The texts of a new app's three files (the stack store writes them: stacks/store/stack-store.ts `create`). */
export const installFiles = (p: PreparedInstall, dialect: EnvDialect): { compose: string; env: string; meta: string } => ({
  compose: p.render.compose,
  env: mergeEnv('', p.render.env, new Set(), dialect),
  meta: `${JSON.stringify(p.meta, null, 2)}\n`,
});
