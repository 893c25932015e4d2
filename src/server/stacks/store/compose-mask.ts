import { isPair, isScalar, isSeq, parseDocument, visit } from 'yaml';
import { AppError } from '../../core/errors.ts';
import { ENV_MASK, type EnvSecrets, maskUrlPasswords, onlyReferences, secretName } from './env-file.ts';

/** Secret values shorter than this are not looked for inside the compose text: `1` or `true` protect nothing. */
const MIN_INNER_SECRET = 6;

/** One string value of a compose text: where it sits (map keys by name, sequence items as `[]`) and its source text. */
interface Spot {
  path: string;
  start: number;
  end: number;
  source: string;
  value: string;
  /** The environment variable it sets (`environment:` as a map or as `KEY=value` items), or null. */
  envKey: string | null;
}

const keyName = (node: unknown): string => (isScalar(node) ? String(node.value) : String(node));

function spotsOf(text: string): Spot[] {
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) return [];
  const out: Spot[] = [];
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (key === 'key' || typeof node.value !== 'string' || !node.range) return;
      const path = ancestors.flatMap((a) => (isPair(a) ? [keyName(a.key)] : isSeq(a) ? ['[]'] : []));
      const [start, end] = node.range;
      const envKey = path.at(-2) !== 'environment' ? null : path.at(-1) === '[]' ? node.value.split('=')[0] || null : (path.at(-1) ?? null);
      out.push({ path: path.join('\u0000'), start, end, source: text.slice(start, end), value: node.value, envKey });
    },
  });
  return out;
}

/** The values a compose file itself holds as secrets: literal values of environment variables named like one. */
function inlineSecrets(spots: Spot[]): string[] {
  return spots.flatMap((s) => {
    if (s.envKey === null || !secretName(s.envKey)) return [];
    const value = s.value.includes('=') && s.value.startsWith(`${s.envKey}=`) ? s.value.slice(s.envKey.length + 1) : s.value;
    return value === '' || onlyReferences(value) ? [] : [value];
  });
}

/** What a spot shows masked: a secret variable's whole value, else the URL passwords and secret values in it. */
function maskedSource(s: Spot, values: readonly string[]): string {
  const listed = s.value.startsWith(`${s.envKey}=`);
  const value = listed ? s.value.slice((s.envKey ?? '').length + 1) : s.value;
  if (s.envKey !== null && secretName(s.envKey) && value !== '' && !onlyReferences(value)) return listed ? `${s.envKey}=${ENV_MASK}` : ENV_MASK;
  let out = maskUrlPasswords(s.source);
  for (const v of values) {
    if (v.length < MIN_INNER_SECRET || !s.value.includes(v)) continue;
    // A secret written with escapes in the file is not found verbatim: the whole value is hidden then.
    if (!s.source.includes(v)) return ENV_MASK;
    out = out.split(v).join(ENV_MASK);
  }
  return out;
}

const splice = (text: string, changes: { start: number; end: number; text: string }[]): string =>
  [...changes].sort((a, b) => b.start - a.start).reduce((acc, c) => acc.slice(0, c.start) + c.text + acc.slice(c.end), text);

/** The secret values masked in a compose text: the app's `.env` secrets and the compose file's own. */
const secretValues = (spots: Spot[], secrets: EnvSecrets) => [...new Set([...secrets.values, ...inlineSecrets(spots)])].sort((a, b) => b.length - a.length);

/**
 * The compose text as a non-admin sees it: the values of environment variables named like a secret, URL passwords and
 * the app's secret values replaced by ENV_MASK, everything else byte for byte. Text that is no YAML hides the
 * secrets it finds verbatim.
 */
export function maskCompose(text: string, secrets: EnvSecrets): string {
  const spots = spotsOf(text);
  const values = secretValues(spots, secrets);
  if (spots.length === 0) return values.reduce((acc, v) => (v.length >= MIN_INNER_SECRET ? acc.split(v).join(ENV_MASK) : acc), maskUrlPasswords(text));
  return splice(
    text,
    spots.flatMap((s) => {
      const masked = maskedSource(s, values);
      return masked === s.source ? [] : [{ start: s.start, end: s.end, text: masked }];
    }),
  );
}

/**
 * An edited compose text in which every value still shown masked (as maskCompose showed it, at the same place) gets
 * its stored text back. A mask anywhere else is refused, naming its line: the value it stood for stays where it was.
 */
export function unmaskCompose(edited: string, oldText: string, secrets: EnvSecrets): string {
  if (!edited.includes(ENV_MASK)) return edited;
  const oldSpots = spotsOf(oldText);
  const values = secretValues(oldSpots, secrets);
  const kept = new Map<string, string>();
  for (const s of oldSpots) {
    const masked = maskedSource(s, values);
    if (masked !== s.source) kept.set(`${s.path}\u0001${masked}`, s.source);
  }
  const changes = spotsOf(edited).flatMap((s) =>
    s.source.includes(ENV_MASK) ? [{ start: s.start, end: s.end, text: kept.get(`${s.path}\u0001${s.source}`) }] : [],
  );
  const stray = changes.find((c) => c.text === undefined) ?? (changes.length === 0 ? { start: edited.indexOf(ENV_MASK) } : null);
  if (stray) {
    const line = edited.slice(0, stray.start).split('\n').length;
    throw new AppError('validation', `line ${line} of the compose file holds a masked value (${ENV_MASK}) where none was: type the value, or undo that line`, {
      params: { line, reason: 'masked_moved' },
      fields: ['content'],
    });
  }
  return splice(edited, changes as { start: number; end: number; text: string }[]);
}
