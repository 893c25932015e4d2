/** What a viewer sees instead of a secret value. */
export const MASK = '•••';

/**
 * Values shorter than this are not scrubbed from free text: masking every `1` or `true` would make
 * an inspect unreadable, and such values protect nothing.
 */
const MIN_SECRET_LENGTH = 4;

/** Secret values, longest first, so a secret that contains another is masked whole. */
export function secretList(values: Iterable<string>): string[] {
  return [...new Set([...values].filter((v) => v.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
}

/** Every string inside `value` (keys too) with each secret replaced by the mask; other values as they are. */
export function maskDeep(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  const text = (s: string) => secrets.reduce((acc, secret) => acc.split(secret).join(MASK), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, inner]) => [text(k), walk(inner)]));
    return v;
  };
  return walk(value);
}
