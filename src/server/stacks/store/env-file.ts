import { AppError } from '../../core/errors.ts';
import type { ComposeVariant } from '../../engine/compose.ts';

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * How `.env` values are written so that the app receives exactly what the user typed. Both compose
 * variants read double-quoted values with `\\`, `\"`, `\n` and `\r` escapes, but they part on `$`:
 * compose v2 (compose-go) expands `$NAME` and `${NAME}` in double quotes and reads `\$` as a literal
 * `$`; compose v1 (python-dotenv) knows no `\$`, leaves a bare `$` alone and expands every `${...}`,
 * quoted or not. v1 has no escape for `${`, so it is written as a `${…:-$}` default that yields `$`
 * followed by the literal `{`; and v1 reads `\\"` at the end of a value as an escaped quote, so a
 * trailing backslash is written as a `${…:-\\}` default. Kade's own reader (parseEnv) reads both back.
 */
export type EnvDialect = ComposeVariant;

/** A variable nobody sets: its default is the literal `$` compose v1 cannot otherwise be given before `{`. */
const V1_DOLLAR = '${KADE_LITERAL:-$}';
/** The same for a backslash right before the closing quote. */
const V1_BACKSLASH = '${KADE_LITERAL:-\\\\}';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r' };

/** One value as a double-quoted `.env` value for the given compose variant. */
export function quoteEnvValue(value: string, dialect: EnvDialect): string {
  const escaped = value.replace(/[\\"\n\r]/g, (ch) => ESCAPES[ch] ?? ch);
  if (dialect === 'v2') return `"${escaped.replace(/\$/g, '\\$')}"`;
  const v1 = escaped.replace(/\$\{/g, `${V1_DOLLAR}{`);
  // The escaped text ends in `\\` exactly when the value ends in a backslash.
  return `"${value.endsWith('\\') ? `${v1.slice(0, -2)}${V1_BACKSLASH}` : v1}"`;
}

const UNESCAPE: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

/** The inverse of quoteEnvValue for either dialect: the text between the double quotes. */
function unquoteDouble(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch === '\\' && i + 1 < body.length) {
      const next = body[++i] as string;
      out += UNESCAPE[next] ?? next;
    } else if (body.startsWith(V1_DOLLAR, i) || body.startsWith(V1_BACKSLASH, i)) {
      out += body.startsWith(V1_DOLLAR, i) ? '$' : '\\';
      i += (body.startsWith(V1_DOLLAR, i) ? V1_DOLLAR : V1_BACKSLASH).length - 1;
    } else {
      out += ch;
    }
  }
  return out;
}

/** One meaningful line of a `.env` file; comments and blank lines are kept as `raw` only. */
interface EnvLine {
  raw: string;
  key: string | null;
  value: string;
}

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) return unquoteDouble(t.slice(1, -1));
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1);
  // An unquoted value ends at a ` #` comment, as compose reads it.
  const hash = t.search(/\s#/);
  return hash >= 0 ? t.slice(0, hash).trimEnd() : t;
}

function lines(text: string): EnvLine[] {
  return text.split('\n').map((raw) => {
    const t = raw.trim();
    if (t === '' || t.startsWith('#')) return { raw, key: null, value: '' };
    const body = t.startsWith('export ') ? t.slice(7) : t;
    const eq = body.indexOf('=');
    if (eq <= 0) return { raw, key: null, value: '' };
    return { raw, key: body.slice(0, eq).trim(), value: unquote(body.slice(eq + 1)) };
  });
}

/** The variables of a `.env` text; the last of a repeated key wins, as in compose. */
export function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const l of lines(text)) if (l.key !== null) out[l.key] = l.value;
  return out;
}

/** Refuses the first line that is neither blank, a comment, nor KEY=value, naming it by number. */
export function checkEnvText(text: string): void {
  text.split('\n').forEach((raw, i) => {
    const t = raw.trim();
    if (t === '' || t.startsWith('#')) return;
    const body = t.startsWith('export ') ? t.slice(7) : t;
    const eq = body.indexOf('=');
    const line = i + 1;
    if (eq < 0) throw new AppError('validation', `line ${line} of .env has no '=': write it as NAME=value`, { params: { line }, fields: ['content'] });
    const key = body.slice(0, eq).trim();
    if (!KEY.test(key)) {
      throw new AppError('validation', `line ${line} of .env has an invalid name '${key.slice(0, 40)}'`, { params: { line }, fields: ['content'] });
    }
  });
}

/**
 * The `.env` after a render: Kade's own variables as KEY="value" lines (quoteEnvValue), followed by the user's other
 * lines and comments (added with the editor) unchanged. `managed` names every key Kade wrote before, so a secret
 * that a template no longer has is dropped instead of kept as a stray line.
 */
export function mergeEnv(oldText: string, env: Record<string, string>, managed: Set<string>, dialect: EnvDialect): string {
  const own = Object.entries(env).map(([k, v]) => `${k}=${quoteEnvValue(v, dialect)}`);
  const kept = lines(oldText)
    .filter((l) => (l.key === null ? l.raw.trim().startsWith('#') : !managed.has(l.key) && !Object.hasOwn(env, l.key)))
    .map((l) => l.raw);
  const all = [...own, ...kept];
  return all.length ? `${all.join('\n')}\n` : '';
}

/**
 * The `.env` with some values changed in place (`change` answers the new value, or null to keep it): a changed
 * line is written as KEY="value" (quoteEnvValue), every other line stays byte for byte.
 */
export function rewriteEnvValues(text: string, change: (key: string, value: string) => string | null, dialect: EnvDialect): string {
  return lines(text)
    .map((l) => {
      if (l.key === null) return l.raw;
      const next = change(l.key, l.value);
      return next === null || next === l.value ? l.raw : `${l.key}=${quoteEnvValue(next, dialect)}`;
    })
    .join('\n');
}

/** What the editors show instead of a secret value (an admin may ask to see `.env` in clear). */
export const ENV_MASK = '••••••••';
const SECRET_NAME = /pass|secret|token|key|private|credential|salt/i;
/** A comment line that marks the key on the next line as a secret. */
const SECRET_MARK = /^#\s*secret\s*$/i;
/** `scheme://user:password@`: the password of a URL (a database address); `$`-references are no secret. */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^:@/\s]*:)([^@\s/]+)@/gi;
/** Secret values shorter than this are not looked for inside other values: `1` or `true` protect nothing. */
const MIN_INNER_SECRET = 6;

/** Whether a value is only `$NAME`/`${NAME…}` references (what it stands for is judged where it is defined). */
export const onlyReferences = (value: string): boolean => value.replace(/\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*/g, '').trim() === '';

/** Whether an environment variable's name says it holds a secret (PASSWORD, API_KEY, …). */
export const secretName = (key: string): boolean => SECRET_NAME.test(key);

/** Whether a value holds a URL with a password in it. */
export const holdsUrlPassword = (value: string): boolean => [...value.matchAll(URL_PASSWORD)].some((m) => !onlyReferences(m[2] ?? ''));

/** `text` with the password of every URL in it replaced by ENV_MASK (`$`-references kept). */
export const maskUrlPasswords = (text: string): string =>
  text.replace(URL_PASSWORD, (all, head: string, pw: string) => (onlyReferences(pw) ? all : `${head}${ENV_MASK}@`));

/** The keys marked secret in a `.env` text: each has a `# secret` comment on the line right above it. */
export function markedSecretKeys(text: string): string[] {
  const all = lines(text);
  return all.flatMap((l, i) => (l.key !== null && i > 0 && SECRET_MARK.test(all[i - 1]?.raw.trim() ?? '') ? [l.key] : []));
}

/** What the editors hide of an app's `.env`: the keys whose values are secrets, and those values (longest first). */
export interface EnvSecrets {
  keys: ReadonlySet<string>;
  values: readonly string[];
}

/**
 * The secrets of a `.env` text: the keys in `named` (the template's secret fields, the keys kept secret in
 * `.svc.json`), the keys marked with `# secret`, and every key whose name looks secret; and their values.
 */
export function envSecrets(text: string, named: Iterable<string>): EnvSecrets {
  const keys = new Set([...named, ...markedSecretKeys(text)]);
  const values = new Set<string>();
  for (const l of lines(text)) {
    if (l.key === null || l.value === '' || !(keys.has(l.key) || secretName(l.key))) continue;
    keys.add(l.key);
    if (!onlyReferences(l.value)) values.add(l.value);
  }
  return { keys, values: [...values].sort((a, b) => b.length - a.length) };
}

/** Whether a line's value is hidden: its key is a secret, or the value holds a URL password or a secret's value. */
function hidden(l: EnvLine, s: EnvSecrets): boolean {
  if (l.key === null || l.value === '' || onlyReferences(l.value)) return false;
  if (s.keys.has(l.key) || holdsUrlPassword(l.value)) return true;
  return s.values.some((v) => v.length >= MIN_INNER_SECRET && l.value.includes(v));
}

/** `text` with every secret value of `values` long enough to look for (MIN_INNER_SECRET) and every URL password masked. */
export function hideSecretsIn(text: string, values: readonly string[]): string {
  const longest = values.filter((v) => v.length >= MIN_INNER_SECRET).sort((a, b) => b.length - a.length);
  return maskUrlPasswords(longest.reduce((acc, v) => acc.split(v).join(ENV_MASK), text));
}

/** `#KEY=value`, `# export KEY=value`: a commented-out assignment, its head up to `=` and what follows. */
const COMMENTED = /^(\s*#\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=)([\s\S]*)$/;

/** A commented-out assignment as a line (its key and value) with its head, or null for any other line. */
function commentedOut(raw: string): (EnvLine & { head: string }) | null {
  const m = COMMENTED.exec(raw);
  return m ? { raw, head: m[1] as string, key: m[2] as string, value: unquote(m[3] as string) } : null;
}

/** Whether a commented-out assignment's value is hidden: as an active line's would be, or its name looks secret. */
const hiddenComment = (l: EnvLine, s: EnvSecrets): boolean => hidden(l, s) || (secretName(l.key ?? '') && l.value !== '' && !onlyReferences(l.value));

/** Each line of a `.env` text and what a non-admin sees of it; `masked` for an active line whose value is hidden. */
function maskedLines(text: string, secretKeys: Iterable<string>): { line: EnvLine; shown: string; masked: boolean }[] {
  const s = envSecrets(text, secretKeys);
  const all = lines(text);
  const commented = all.map((l) => (l.key === null ? commentedOut(l.raw) : null));
  // A secret that was commented out is a secret too: looked for in the other comments (not in values).
  const inComments = [...s.values, ...commented.flatMap((c) => (c && hiddenComment(c, s) ? [c.value] : []))];
  return all.map((line, i) => {
    if (hidden(line, s)) return { line, shown: `${line.key}=${ENV_MASK}`, masked: true };
    if (line.key !== null || !line.raw.trim().startsWith('#')) return { line, shown: line.raw, masked: false };
    const c = commented[i];
    return { line, shown: c && hiddenComment(c, s) ? `${c.head}${ENV_MASK}` : hideSecretsIn(line.raw, inComments), masked: false };
  });
}

/**
 * The `.env` text with every hidden value (see `hidden`) replaced by ENV_MASK, and the keys it masked. In comments, a
 * commented-out assignment's value is masked as an active line's would be (or when its name looks secret), and the
 * secret values and URL passwords in any comment. Blank lines and other values stay as they are.
 */
export function maskEnv(text: string, secretKeys: Iterable<string>): { content: string; masked: string[] } {
  const all = maskedLines(text, secretKeys);
  const masked = all.flatMap((l) => (l.masked ? [l.line.key as string] : []));
  return { content: all.map((l) => l.shown).join('\n'), masked: [...new Set(masked)] };
}

/**
 * An edited `.env` text in which every line still carrying ENV_MASK gets the line it stood for in `oldText` back: an
 * active line by its key, a comment shown masked by its masked text (alike ones in their order). `secretKeys` are
 * those maskEnv was given.
 */
export function unmaskEnv(edited: string, oldText: string, secretKeys: Iterable<string>): string {
  const before = maskedLines(oldText, secretKeys);
  const old = new Map(before.flatMap(({ line: l }) => (l.key === null ? [] : [[l.key, l.raw] as const])));
  const comments = new Map<string, string[]>();
  for (const { line, shown } of before) if (line.key === null && shown !== line.raw) comments.set(shown, [...(comments.get(shown) ?? []), line.raw]);
  return lines(edited)
    .map((l) => {
      if (!l.raw.includes(ENV_MASK)) return l.raw;
      if (l.key === null) return comments.get(l.raw)?.shift() ?? l.raw;
      return l.value === ENV_MASK && old.has(l.key) ? (old.get(l.key) as string) : l.raw;
    })
    .join('\n');
}

/** The keys of a `.env` text that have a value (the last of a repeated key wins). */
export const envKeys = (text: string): string[] => Object.keys(parseEnv(text));
