import { checkField, type RuleIssue } from '../../shared/field-rules.ts';
import { NAME_PATTERN } from '../../shared/names.ts';
import { hasPlaceholder } from '../../shared/placeholders.ts';
import type { FieldValue, TemplateFieldT, TemplateFileT, TemplateGroupT } from '../../shared/template.ts';

/** What the form holds: text inputs keep strings (the server coerces), switches keep booleans. */
export type FormValues = Record<string, FieldValue>;

/** One page of the install form. `main` holds the name and the ungrouped fields; `review` ends it. */
export type Step = { kind: 'main'; fields: TemplateFieldT[] } | { kind: 'group'; group: TemplateGroupT; fields: TemplateFieldT[] } | { kind: 'review' };

export const isValidName = (name: string): boolean => NAME_PATTERN.test(name);

export { randomSecret, textIn } from './form-text.ts';

/** The synthetic boolean of a group with a toggle (the server's name for it). */
export const toggleId = (groupId: string): string => `${groupId}_enabled`;

export const groupEnabled = (g: TemplateGroupT, values: FormValues): boolean => {
  if (!g.toggle) return true;
  const v = values[toggleId(g.id)];
  return v === undefined ? g.toggle_default : v === true || v === 'true';
};

/** The steps as they stand: advanced fields and groups only when the advanced switch is on. */
export function buildSteps(t: TemplateFileT, advanced: boolean): Step[] {
  const shown = (f: TemplateFieldT) => advanced || !f.advanced;
  const steps: Step[] = [{ kind: 'main', fields: t.fields.filter(shown) }];
  for (const g of t.groups) {
    if (g.advanced && !advanced) continue;
    const fields = g.fields.filter(shown);
    if (fields.length > 0 || g.toggle) steps.push({ kind: 'group', group: g, fields });
  }
  steps.push({ kind: 'review' });
  return steps;
}

/** How many things the advanced switch reveals: advanced groups count once, advanced fields outside them each. */
export function advancedCount(t: TemplateFileT): number {
  let n = t.fields.filter((f) => f.advanced).length;
  for (const g of t.groups) n += g.advanced ? 1 : g.fields.filter((f) => f.advanced).length;
  return n;
}

const blank = (v: FieldValue | undefined) => v === undefined || (typeof v === 'string' && v.trim() === '');

/** The fields of a step that need a value and have none; fields of a switched-off group do not count. */
export function missingIn(step: Step, values: FormValues): TemplateFieldT[] {
  if (step.kind === 'review') return [];
  if (step.kind === 'group' && !groupEnabled(step.group, values)) return [];
  // A generated field gets a random value from the server when left empty, like the server's own check.
  return step.fields.filter((f) => f.required && !f.generate && blank(values[f.id]));
}

/** The fields of a step the shared rules refuse (empty and required, or a value of the wrong form), with why. */
export function problemsIn(step: Step, values: FormValues): { field: TemplateFieldT; issue: RuleIssue }[] {
  if (step.kind === 'review') return [];
  const enabled = step.kind === 'main' || groupEnabled(step.group, values);
  const out: { field: TemplateFieldT; issue: RuleIssue }[] = [];
  for (const f of step.fields) {
    const issue = checkField(f, values[f.id], enabled);
    if (issue) out.push({ field: f, issue });
  }
  return out;
}

/**
 * Fields whose value follows the typed name until the user edits them: a string default with a
 * placeholder ({name}, {data_dir}, …), and the data folder (`appdata_dir`) when the server gave
 * its data root. Maps the field id to the text to fill.
 */
export function followers(t: TemplateFileT, start: FormValues, dataRoot: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of allFields(t)) {
    if (f.id === 'appdata_dir' && dataRoot !== undefined) out.set(f.id, '{data_dir}');
    else if (typeof f.default === 'string' && hasPlaceholder(f.default) && start[f.id] === f.default) out.set(f.id, f.default);
  }
  return out;
}

/** The index of the first step that shows one of the named fields, or -1. */
export function stepOf(steps: Step[], ids: readonly string[]): number {
  return steps.findIndex((s) => s.kind !== 'review' && s.fields.some((f) => ids.includes(f.id)));
}

/** Every field of the template, ungrouped first. */
export const allFields = (t: TemplateFileT): TemplateFieldT[] => [...t.fields, ...t.groups.flatMap((g) => g.fields)];

/** A first name for the instance: the app id, or the first `<id>-N` not taken yet. */
export function freeName(app: string, taken: readonly string[]): string {
  if (!taken.includes(app)) return app;
  for (let i = 2; i < 1000; i++) {
    const n = `${app}-${i}`;
    if (!taken.includes(n)) return n;
  }
  return app;
}

/** The values as the form starts: the server's pre-fills, toggles at their start state, empty strings elsewhere. */
export function startValues(t: TemplateFileT, values: FormValues): FormValues {
  const out: FormValues = {};
  for (const f of allFields(t)) {
    const v = values[f.id];
    if (f.type === 'boolean') out[f.id] = v === true || v === 'true';
    else out[f.id] = v === undefined ? '' : String(v);
  }
  for (const g of t.groups) if (g.toggle) out[toggleId(g.id)] = values[toggleId(g.id)] ?? g.toggle_default;
  return out;
}

/** The body of the install request: numbers as numbers when they read as one, so the server sees what was meant. */
export function requestValues(t: TemplateFileT, values: FormValues): FormValues {
  const out: FormValues = { ...values };
  for (const f of allFields(t)) {
    const v = values[f.id];
    if ((f.type === 'number' || f.type === 'port') && typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) out[f.id] = Number(v);
  }
  return out;
}
