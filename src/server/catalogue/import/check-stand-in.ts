/**
 * The check's stand-ins (check.ts) for required fields without a default: a value that passes the field's own rules
 * (its type, length and pattern), as a user would type one; null when none does, and the app needs a person's input.
 */
import { checkField } from '../../../shared/field-rules.ts';
import type { FieldValue, TemplateFieldT } from '../../../shared/template.ts';
import { randomSecret } from '../../templates/values.ts';
import { patternExample } from './pattern-example.ts';

/** What users plausibly type, tried before values made from the field's pattern. */
const TYPED = ['kadecheck', 'example.com', 'admin@example.com', 'http://127.0.0.1:8080', '192.168.1.10', '0 3 * * *'];
const STRETCHES = [0, 1, 2, 4, 8, 16, 32, 64];

/** `s` made long or short enough for the field's length rule (repeated, then cut). */
function fitted(f: TemplateFieldT, s: string): string {
  let out = s || 'x';
  while (f.min_length !== undefined && out.length < f.min_length) out += s || 'x';
  return f.max_length !== undefined ? out.slice(0, f.max_length) : out;
}

function textCandidates(f: TemplateFieldT): string[] {
  const made = f.pattern ? STRETCHES.map((n) => patternExample(f.pattern as string, n)).filter((v): v is string => v !== null) : [];
  const raw = [...TYPED, ...made];
  const secrets = [randomSecret({ ...f, generate_encoding: 'base64url' }), randomSecret({ ...f, generate_encoding: 'hex' })];
  return [...raw, ...raw.map((s) => fitted(f, s)), ...secrets];
}

function candidates(f: TemplateFieldT, n: number, dataDir: string): FieldValue[] {
  switch (f.type) {
    case 'port':
      return [20000 + n];
    case 'number':
      return [f.min ?? Math.min(1, f.max ?? 1)];
    case 'boolean':
      return [false];
    case 'select':
      return f.options?.[0] ? [f.options[0].value] : [];
    case 'path':
      return [`${dataDir}/check/${f.id}`];
    default:
      return textCandidates(f);
  }
}

/** The first plausible value the field's rules accept; `n` numbers the stand-ins (each port its own). */
export function standIn(f: TemplateFieldT, n: number, dataDir: string): FieldValue | null {
  return candidates(f, n, dataDir).find((v) => checkField(f, v) === null) ?? null;
}

/** The field's rules in words, for the report of an app that needs input. */
export function rulesOf(f: TemplateFieldT): string {
  const rules = [
    f.type === 'email' || f.type === 'url' ? `an ${f.type === 'email' ? 'e-mail address' : 'address'}` : '',
    f.min_length !== undefined ? `at least ${f.min_length} characters` : '',
    f.max_length !== undefined ? `at most ${f.max_length} characters` : '',
    f.pattern ? `the form ${f.pattern}` : '',
  ].filter(Boolean);
  return rules.join(', ') || `a ${f.type}`;
}
