import type { FieldValue, TemplateFileT } from '../../../shared/template.ts';
import { allFields } from '../../templates/render.ts';
import { isNeverTyped, type PrefillContext, prefill, randomSecret, toggleId } from '../../templates/values.ts';

/** The form schema of an app: the template as declared plus the values the form starts with. */
export function presentAppSchema(repo: string, app: string, template: TemplateFileT, ctx: PrefillContext) {
  const values: Record<string, FieldValue> = {};
  for (const f of allFields(template)) {
    const v = prefill(f, ctx) ?? (isNeverTyped(f) ? randomSecret(f) : undefined);
    if (v !== undefined) values[f.id] = v;
  }
  for (const g of template.groups) if (g.toggle) values[toggleId(g.id)] = g.toggle_default;
  return { repo, app, template, values, data_root: ctx.dataDir };
}
