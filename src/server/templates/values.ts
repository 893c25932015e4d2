import { randomBytes } from 'node:crypto';
import { checkField, isBlankValue, ruleMessage } from '../../shared/field-rules.ts';
import { appDataDir, fillPlaceholders } from '../../shared/placeholders.ts';
import type { FieldValue, TemplateFieldT, TemplateFileT } from '../../shared/template.ts';
import { AppError } from '../core/errors.ts';

export interface PrefillContext {
  dataDir: string;
  uid: number;
  gid: number;
  /** The app being installed: fills `{name}` in defaults and makes the data folder DATA_DIR/<name>. */
  name?: string;
}

/** A generated value: 32 characters (or the field's min_length, at most its max_length) of base64url, or of hex when the field says so. */
export function randomSecret(f?: Pick<TemplateFieldT, 'generate_encoding' | 'min_length' | 'max_length'>): string {
  const len = Math.min(Math.max(32, f?.min_length ?? 0), f?.max_length ?? Number.POSITIVE_INFINITY);
  if (f?.generate_encoding === 'hex')
    return randomBytes(Math.ceil(len / 2))
      .toString('hex')
      .slice(0, len);
  return randomBytes(Math.ceil((len * 3) / 4))
    .toString('base64url')
    .slice(0, len);
}

const MACHINE_SECRET =
  /(^|_)(db|database|postgres|pg|mysql|mariadb|redis|mongo)_?(password|pass|pw)$|secret_?key|signing|encryption|jwt|salt|session_secret|app_key/;
const HUMAN = /admin|user|login|owner|root_password/;

/**
 * A value nobody types by hand (database passwords, signing and encryption keys): the form starts
 * with a random one. A login password is typed by a person, so it only gets the generate button.
 */
export const isNeverTyped = (f: TemplateFieldT): boolean => f.secret && f.generate === true && MACHINE_SECRET.test(f.id) && !HUMAN.test(f.id);

/** Values Kade fills in before the user sees the form. */
export function prefill(f: TemplateFieldT, ctx: PrefillContext): FieldValue | undefined {
  if (f.id === 'appdata_dir') return ctx.name === undefined ? ctx.dataDir : appDataDir(ctx.dataDir, ctx.name);
  if (f.id === 'puid') return ctx.uid;
  if (f.id === 'pgid') return ctx.gid;
  if (typeof f.default === 'string' && ctx.name !== undefined) return fillPlaceholders(f.default, { name: ctx.name, dataRoot: ctx.dataDir });
  return f.default;
}

/** Toggle fields are synthetic booleans named after their group. */
export const toggleId = (groupId: string) => `${groupId}_enabled`;

/** The value as the compose file gets it, once the shared rules (shared/field-rules.ts) accept it. */
function coerce(f: TemplateFieldT, v: FieldValue): FieldValue {
  const refused = checkField(f, v);
  if (refused) throw new AppError('validation', ruleMessage(f.id, refused), { fields: [f.id], params: { field: f.id, ...refused.params } });
  if (f.type === 'number' || f.type === 'port') return typeof v === 'number' ? v : Number(String(v).trim());
  if (f.type === 'boolean') return v === true || v === 'true' || v === 1 || v === '1';
  return String(v);
}

const isBlank = isBlankValue;

/**
 * The values a render uses: input, then defaults and pre-fills, then generated secrets.
 * Refuses every empty required field at once, naming them; fields behind a switched-off toggle do not count.
 */
export function resolveValues(t: TemplateFileT, input: Record<string, FieldValue>, ctx: PrefillContext): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = Object.create(null) as Record<string, FieldValue>;
  const missing: string[] = [];
  const take = (f: TemplateFieldT, enabled: boolean) => {
    let v: FieldValue | undefined = Object.hasOwn(input, f.id) ? input[f.id] : prefill(f, ctx);
    if (isBlank(v) && f.generate === true) v = randomSecret(f);
    if (isBlank(v)) {
      if (f.required && enabled) missing.push(f.id);
      out[f.id] = f.type === 'boolean' ? false : '';
      return;
    }
    out[f.id] = coerce(f, v as FieldValue);
  };
  for (const f of t.fields) take(f, true);
  for (const g of t.groups) {
    const tid = toggleId(g.id);
    const on = g.toggle ? (Object.hasOwn(input, tid) ? input[tid] === true || input[tid] === 'true' : g.toggle_default) : true;
    if (g.toggle) out[tid] = on;
    for (const f of g.fields) take(f, on);
  }
  if (missing.length > 0) {
    throw new AppError('required_fields', `required fields are empty: ${missing.join(', ')}`, { params: { fields: missing.join(', ') }, fields: missing });
  }
  return out;
}
