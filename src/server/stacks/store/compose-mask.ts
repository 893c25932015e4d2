import { CST, isPair, isScalar, isSeq, Lexer, parseDocument, visit } from 'yaml';
import { AppError } from '../../core/errors.ts';
import { ENV_MASK, type EnvSecrets, hideSecretsIn, maskUrlPasswords, onlyReferences, secretName } from './env-file.ts';

/** Secret values shorter than this are not looked for inside the compose text: `1` or `true` protect nothing. */
const MIN_INNER_SECRET = 6;

/** The sequences whose `KEY=value` items set a variable named KEY: `environment`, a build's `args`, `labels`. */
const LISTED = new Set(['environment', 'args', 'labels']);

/** One scalar value (no key) of a compose text: its own place, its source text and its value as text. */
interface Spot {
  /** Map keys by name, sequence items by index: no two values share one. */
  path: string;
  start: number;
  end: number;
  source: string;
  /** A string as YAML reads it; a number or a boolean as written. */
  value: string;
  /** A boolean: masked where it stands, but no value to look for elsewhere. */
  flag: boolean;
  /** The name it is the value of (its own map key, or KEY of a `KEY=value` item of a LISTED sequence), or null. */
  key: string | null;
  /** Whether it is such a `KEY=value` item. */
  listed: boolean;
}

const keyName = (node: unknown): string => (isScalar(node) ? String(node.value) : String(node));

/** Where a node stands: the key of each pair above it, the index of each sequence item. */
const placeOf = (ancestors: readonly unknown[], node: unknown): (string | number)[] =>
  ancestors.flatMap<string | number>((a, i) => (isPair(a) ? [keyName(a.key)] : isSeq(a) ? [a.items.indexOf(ancestors[i + 1] ?? node)] : []));

function nameOf(place: (string | number)[], value: string): { key: string | null; listed: boolean } {
  const last = place.at(-1);
  if (typeof last === 'string') return { key: last, listed: false };
  const eq = value.indexOf('=');
  return typeof last === 'number' && LISTED.has(String(place.at(-2))) && eq > 0 ? { key: value.slice(0, eq), listed: true } : { key: null, listed: false };
}

/** The values of a compose text, or null when it is no YAML. */
function spotsOf(text: string): Spot[] | null {
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) return null;
  const out: Spot[] = [];
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (key === 'key' || node.value === null || node.value === undefined || !node.range) return;
      const place = placeOf(ancestors, node);
      const [start, end] = node.range;
      const source = text.slice(start, end);
      const value = typeof node.value === 'string' ? node.value : source;
      out.push({ path: place.join('\u0000'), start, end, source, value, flag: typeof node.value === 'boolean', ...nameOf(place, value) });
    },
  });
  return out;
}

/** The comments of a YAML text (a `#` inside a scalar is none), found by YAML's own lexer. */
function commentsOf(text: string): { start: number; end: number; source: string }[] {
  const out: { start: number; end: number; source: string }[] = [];
  let at = 0;
  let scalarNext = false;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (type === 'comment' && !scalarNext && text.startsWith(token, at)) out.push({ start: at, end: at + token.length, source: token });
    scalarNext = type === 'scalar';
    // The lexer's control tokens stand for nothing in the text.
    if (type !== 'doc-mode' && type !== 'flow-error-end' && type !== 'scalar') at += token.length;
  }
  return out;
}

/** What a spot gives its name: a `KEY=value` item's part after `=`, else its whole value. */
const givenValue = (s: Spot): string => (s.listed ? s.value.slice((s.key ?? '').length + 1) : s.value);

/** Whether a spot is a secret of its own: a literal value of a name that looks secret, wherever it stands. */
const ownSecret = (s: Spot): boolean => s.key !== null && secretName(s.key) && givenValue(s) !== '' && !onlyReferences(givenValue(s));

/** The values a compose file itself holds as secrets (see ownSecret), booleans aside. */
const inlineSecrets = (spots: Spot[]): string[] => spots.flatMap((s) => (ownSecret(s) && !s.flag ? [givenValue(s)] : []));

/** The secret values a compose text holds inline (what a refusal shown to a non-admin must not quote); none when no YAML. */
export const composeSecrets = (text: string): string[] => inlineSecrets(spotsOf(text) ?? []);

/** What a spot shows masked: a secret of its own whole, else the URL passwords and secret values in it. */
function maskedSource(s: Spot, values: readonly string[]): string {
  if (ownSecret(s)) return s.listed ? `${s.key}=${ENV_MASK}` : ENV_MASK;
  let out = maskUrlPasswords(s.source);
  for (const v of values) {
    if (v.length < MIN_INNER_SECRET || !s.value.includes(v)) continue;
    // A secret written with escapes in the file is not found verbatim: the whole value is hidden then.
    if (!s.source.includes(v)) return ENV_MASK;
    out = out.split(v).join(ENV_MASK);
  }
  return out;
}

interface Change {
  start: number;
  end: number;
  text: string;
}

const splice = (text: string, changes: Change[]): string =>
  [...changes].sort((a, b) => b.start - a.start).reduce((acc, c) => acc.slice(0, c.start) + c.text + acc.slice(c.end), text);

/** The secret values masked in a compose text: the app's `.env` secrets and the compose file's own. */
const secretValues = (spots: Spot[], secrets: EnvSecrets) => [...new Set([...secrets.values, ...inlineSecrets(spots)])].sort((a, b) => b.length - a.length);

/** A value or a comment of a compose text: `place` names it (a comment by kind only), `masked` is what a non-admin sees. */
interface Shown {
  place: string;
  start: number;
  end: number;
  source: string;
  masked: string;
}

/** Every value and comment of a YAML text as a non-admin sees it, or null when it is no YAML. */
function shownParts(text: string, secrets: EnvSecrets): Shown[] | null {
  const spots = spotsOf(text);
  if (spots === null) return null;
  const values = secretValues(spots, secrets);
  return [
    ...spots.map((s) => ({ place: `=${s.path}`, start: s.start, end: s.end, source: s.source, masked: maskedSource(s, values) })),
    ...commentsOf(text).map((c) => ({ place: '#', ...c, masked: hideSecretsIn(c.source, values) })),
  ];
}

/**
 * The compose text as a non-admin sees it: every value whose own name looks secret (a variable, a build arg, a field of
 * an `x-` extension, numbers and booleans too), URL passwords and the app's secret values (in values and comments)
 * replaced by ENV_MASK, everything else byte for byte. Text that is no YAML hides the secrets it finds verbatim.
 */
export function maskCompose(text: string, secrets: EnvSecrets): string {
  const parts = shownParts(text, secrets);
  if (parts === null) return hideSecretsIn(text, secrets.values);
  return splice(
    text,
    parts.flatMap((p) => (p.masked === p.source ? [] : [{ start: p.start, end: p.end, text: p.masked }])),
  );
}

/** The stored text of every masked part of `oldText`, by its place and masked text (alike ones in their order). */
function keptParts(oldText: string, secrets: EnvSecrets): Map<string, string[]> {
  const kept = new Map<string, string[]>();
  for (const p of shownParts(oldText, secrets) ?? []) {
    const at = `${p.place}\u0001${p.masked}`;
    if (p.masked !== p.source) kept.set(at, [...(kept.get(at) ?? []), p.source]);
  }
  return kept;
}

function maskedMoved(edited: string, at: number): AppError {
  const line = edited.slice(0, at).split('\n').length;
  return new AppError('validation', `line ${line} of the compose file holds a masked value (${ENV_MASK}) where none was: type the value, or undo that line`, {
    params: { line, reason: 'masked_moved' },
    fields: ['content'],
  });
}

/**
 * An edited compose text in which every value or comment still shown masked (as maskCompose showed it, at the same
 * place) gets its stored text back. A mask anywhere else is refused, naming its line: the value it stood for stays where it was.
 */
export function unmaskCompose(edited: string, oldText: string, secrets: EnvSecrets): string {
  if (!edited.includes(ENV_MASK)) return edited;
  const kept = keptParts(oldText, secrets);
  const spots = (spotsOf(edited) ?? []).map((s) => ({ place: `=${s.path}`, ...s }));
  const parts = [...spots, ...commentsOf(edited).map((c) => ({ place: '#', ...c }))].filter((p) => p.source.includes(ENV_MASK));
  const changes = parts.map((p) => ({ start: p.start, end: p.end, text: kept.get(`${p.place}\u0001${p.source}`)?.shift() }));
  const missing = changes.find((c) => c.text === undefined);
  if (missing) throw maskedMoved(edited, missing.start);
  // A mask in no value or comment (in a key, or in text that is no YAML) stood for nothing there.
  for (let at = edited.indexOf(ENV_MASK); at >= 0; at = edited.indexOf(ENV_MASK, at + 1))
    if (!changes.some((c) => c.start <= at && at < c.end)) throw maskedMoved(edited, at);
  return splice(edited, changes as Change[]);
}
