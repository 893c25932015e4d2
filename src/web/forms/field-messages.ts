import { NAME_PATTERN, NETWORK_NAME_PATTERN, USER_NAME_PATTERN } from '../../shared/names.ts';
import { ApiError } from '../api.ts';
import { errorText } from '../components/error-message.tsx';
import { t } from '../i18n.ts';

/**
 * What the forms say under a field: always Kade's own sentence in the user's language, never the text of a
 * schema library. The same rules the server applies run while the user types; a refusal from the server is
 * put under the fields it names.
 */

/** The three kinds of name, each with its own rule (shared/names.ts). */
export type NameKind = 'app' | 'user' | 'network';
const NAME_RULES: Record<NameKind, RegExp> = { app: NAME_PATTERN, user: USER_NAME_PATTERN, network: NETWORK_NAME_PATTERN };

/** Why a typed name cannot be used (its rule, or `taken` holds it already), or null; an empty one is a matter of `required`. */
export function nameProblem(kind: NameKind, name: string, taken: readonly string[] = []): string | null {
  if (name === '') return null;
  if (!NAME_RULES[kind].test(name)) return t(`name.invalid.${kind}`, { name });
  if (taken.includes(name)) return kind === 'app' ? t('install.name_taken', { name }) : t(`name.taken.${kind}`, { name });
  return null;
}

/** A zod issue of a shared schema, as much of it as the sentences need (zod itself is not loaded for this). */
export interface SchemaIssue {
  code: string;
  path: readonly PropertyKey[];
  minimum?: unknown;
  maximum?: unknown;
  origin?: string | undefined;
  expected?: string | undefined;
  format?: string | undefined;
}

/** Kade's sentence for an issue; `own`, when given, is the field's own sentence (a time zone, an address) and wins. */
export function issueMessage(i: SchemaIssue, own: string | null = null): string {
  if (own) return own;
  const min = Number(i.minimum);
  const max = Number(i.maximum);
  switch (i.code) {
    case 'too_small':
      if (i.origin === 'string') return min <= 1 ? t('field.required') : t('field.min_length', { min });
      return i.origin === 'array' ? t('field.required') : t('field.min', { min });
    case 'too_big':
      if (i.origin === 'string') return t('field.too_long', { max });
      return i.origin === 'array' ? t('check.too_many', { max }) : t('field.max', { max });
    case 'invalid_type':
      if (i.expected === 'int') return t('check.whole_number');
      return i.expected === 'number' ? t('field.number') : t('check.invalid');
    case 'invalid_value':
      return t('check.choice');
    case 'invalid_format':
      if (i.format === 'email') return t('field.email');
      if (i.format === 'url') return t('field.url');
      return t('check.format');
    default:
      return t('check.invalid');
  }
}

/**
 * The first message per field of a list of issues, keyed by the path joined with dots (`channels.0.url`);
 * `own(path, issue)` gives a field's own sentence where the general one would say too little.
 */
export function messagesByField(issues: readonly SchemaIssue[], own: (path: string, i: SchemaIssue) => string | null = () => null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) {
    const path = i.path.map(String).join('.');
    out[path] ??= issueMessage(i, own(path, i));
  }
  return out;
}

export interface RefusalOptions {
  /** The fields the form shows; a refusal naming others stays in the form's box. */
  known: readonly string[];
  /** The form's own sentence for a field the server named (the rules it checks while typing). */
  local?: (field: string) => string | null;
  /** The field holding a name of this kind and what was sent in it, for `invalid_name`. */
  name?: { field: string; kind: NameKind; value: string } | undefined;
}

/** A refusal laid out for a form: sentences under the fields it names, and what is left for the form's box (or null). */
export function refusalMarks(err: unknown, o: RefusalOptions): { marks: Record<string, string>; rest: unknown } {
  if (!(err instanceof ApiError) || err.fields.length === 0) return { marks: {}, rest: err };
  // The server names a field of a list as `KEY.0`; the form marks the field itself.
  const named = [...new Set(err.fields.map((f) => (o.known.includes(f) ? f : (f.split('.')[0] ?? f))))];
  if (!named.every((f) => o.known.includes(f))) return { marks: {}, rest: err };
  const marks: Record<string, string> = {};
  for (const f of named) {
    if (err.code === 'invalid_name' && o.name?.field === f) marks[f] = o.local?.(f) ?? nameProblem(o.name.kind, o.name.value) ?? errorText(err);
    // The schema's refusal names every field it refused under the first one's code: the others are plain issues.
    else if (err.code === 'validation' || err.code === 'invalid_name') marks[f] = o.local?.(f) ?? t('check.invalid');
    else marks[f] = errorText(err);
  }
  return { marks, rest: null };
}

/** The refusal's sentence for a field while it still holds what was sent: an edit takes the old word away. */
export const stillSays = <K extends string>(marks: Record<string, string>, sent: { [P in K]: string }, field: K, now: string): string | null =>
  sent[field] === now ? (marks[field] ?? null) : null;

/** The value at a dotted path (`channels.0.smtp.host`) of a body, or undefined. */
export function valueAt(body: unknown, path: string): unknown {
  let at: unknown = body;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
