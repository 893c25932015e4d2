/**
 * One validator for template field values, used by the server (templates/values.ts) and by the
 * install and configure forms while the user types. Pure: no Node, no DOM, no zod.
 */
import { matchesWhole } from './field-pattern.ts';
import type { FieldValue, TemplateFieldT } from './template.ts';

export const MAX_VALUE_LENGTH = 4000;
/** A strong password: this long with three kinds of character, or a passphrase of PASSPHRASE_LENGTH. */
export const STRONG_LENGTH = 12;
export const PASSPHRASE_LENGTH = 20;

export const RULE_CODES = [
  'required',
  'number',
  'port',
  'min',
  'max',
  'email',
  'url',
  'connect',
  'pattern',
  'option',
  'too_long',
  'min_length',
  'weak',
] as const;
export type RuleCode = (typeof RULE_CODES)[number];

/** Why a value is refused; `params` fill the message (`field.<code>` in the interface). */
export interface RuleIssue {
  code: RuleCode;
  params: Record<string, string | number>;
}

const issue = (code: RuleCode, params: Record<string, string | number> = {}): RuleIssue => ({ code, params });

export const isBlankValue = (v: FieldValue | undefined): boolean => v === undefined || (typeof v === 'string' && v.trim() === '');

// One @, no spaces, a dot in the domain part: what a mail server can deliver to, not the full RFC.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const PORT_TEXT = /^[0-9]{1,5}$/;

function parseUrl(s: string): URL | null {
  try {
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? new URL(s) : null;
  } catch {
    return null;
  }
}

/**
 * A connect value (docs/templates.md, "Connect fields"): `scheme://host:port` with the field's
 * scheme, a host and a port, and nothing after it.
 */
export function parseConnectValue(s: string, scheme: string): { host: string; port: number } | null {
  const m = /^([a-z][a-z0-9+.-]*):\/\/(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?):([0-9]{1,5})\/?$/i.exec(s.trim());
  if (!m?.[2] || !m[4] || m[1]?.toLowerCase() !== scheme) return null;
  const port = Number(m[4]);
  if (port < 1 || port > 65535) return null;
  return { host: m[2], port };
}

export const connectAddress = (scheme: string, host: string, port: number): string => `${scheme}://${host}:${port}`;

function numberIssue(f: TemplateFieldT, v: FieldValue): RuleIssue | null {
  const text = String(v).trim();
  const n = typeof v === 'number' ? v : Number(text);
  if (f.type === 'port') {
    if (typeof v === 'number' ? !Number.isInteger(v) : !PORT_TEXT.test(text)) return issue('port', { min: 1, max: 65535 });
    if (n < 1 || n > 65535) return issue('port', { min: 1, max: 65535 });
    return null;
  }
  if (typeof v === 'boolean' || text === '' || !Number.isFinite(n)) return issue('number');
  if (f.min !== undefined && n < f.min) return issue('min', { min: f.min });
  if (f.max !== undefined && n > f.max) return issue('max', { max: f.max });
  return null;
}

/** Three of: lower case, upper case, digits, other characters. */
function kinds(s: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((r) => r.test(s)).length;
}

function textIssue(f: TemplateFieldT, s: string): RuleIssue | null {
  if (s.length > MAX_VALUE_LENGTH) return issue('too_long', { max: MAX_VALUE_LENGTH });
  if (f.max_length !== undefined && [...s].length > f.max_length) return issue('too_long', { max: f.max_length });
  if (f.connect) return parseConnectValue(s, f.connect.scheme) ? null : issue('connect', { scheme: f.connect.scheme });
  if (f.type === 'email' && !EMAIL.test(s)) return issue('email');
  if (f.type === 'url' && !parseUrl(s)) return issue('url');
  if (f.type === 'select' && f.options && !f.options.some((o) => o.value === s)) {
    return issue('option', { options: f.options.map((o) => o.value).join(', ') });
  }
  const minLength = Math.max(f.min_length ?? 0, f.strong ? STRONG_LENGTH : 0);
  if (minLength > 0 && [...s].length < minLength) return issue('min_length', { min: minLength });
  if (f.strong && [...s].length < PASSPHRASE_LENGTH && kinds(s) < 3) return issue('weak', { min: STRONG_LENGTH, passphrase: PASSPHRASE_LENGTH });
  // RE2, never RegExp: a template's pattern must not be able to stall the server or the page (field-pattern.ts).
  if (f.pattern && !matchesWhole(f.pattern, s)) return issue('pattern', { pattern: f.pattern });
  return null;
}

/**
 * Why a value of a field is refused, or null. `enabled` is false for a field in a switched-off
 * group: nothing is required there. A blank value is only refused when required; a field that
 * the server fills with a random value (`generate: true`) is never missing.
 */
export function checkField(f: TemplateFieldT, v: FieldValue | undefined, enabled = true): RuleIssue | null {
  if (isBlankValue(v)) return f.required && enabled && f.generate !== true ? issue('required') : null;
  const value = v as FieldValue;
  if (f.type === 'boolean') return null;
  if (f.type === 'number' || f.type === 'port') return numberIssue(f, value);
  return textIssue(f, String(value));
}

const ENGLISH: Record<RuleCode, string> = {
  required: 'is required',
  number: 'must be a number',
  port: 'must be a port between {min} and {max}',
  min: 'must be at least {min}',
  max: 'must be at most {max}',
  email: 'must be an e-mail address such as name@example.org',
  url: 'must be an address such as https://example.org',
  connect: 'must be an address scheme://host:port with scheme {scheme}',
  pattern: 'does not have the form the app expects ({pattern})',
  option: 'must be one of {options}',
  too_long: 'is longer than {max} characters',
  min_length: 'must be at least {min} characters long',
  weak: 'is too weak: use at least {min} characters with three of lower case, upper case, digits and other characters, or at least {passphrase} characters',
};

/** The English sentence for a refused field, as the server's problem detail says it. */
export function ruleMessage(fieldId: string, i: RuleIssue): string {
  return `${fieldId} ${ENGLISH[i.code].replace(/\{(\w+)\}/g, (_m, k: string) => String(i.params[k] ?? ''))}`;
}
