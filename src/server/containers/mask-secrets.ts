/** What a viewer sees instead of a secret value. */
export const MASK = '•••';

/**
 * Values shorter than this are not scrubbed from free text: masking every `1` or `true` would make
 * an inspect unreadable, and such values protect nothing.
 */
const MIN_SECRET_LENGTH = 4;

/**
 * The same floor for logs, a little higher: a log is prose, where short values (`/root`, `info`) are
 * common words, and a secret field's value is longer than this.
 */
const MIN_LOG_SECRET_LENGTH = 6;

const longestFirst = (values: Iterable<string>, min: number) => [...new Set([...values].filter((v) => v.length >= min))].sort((a, b) => b.length - a.length);

/** Secret values, longest first, so a secret that contains another is masked whole. */
export function secretList(values: Iterable<string>): string[] {
  return longestFirst(values, MIN_SECRET_LENGTH);
}

/**
 * Secret values as a log shows them: logs are masked line by line, so a value of several lines (a PEM
 * key) is masked line by line too.
 */
export function logSecretList(values: Iterable<string>): string[] {
  return longestFirst(
    [...values].flatMap((v) => v.split(/\r?\n/)),
    MIN_LOG_SECRET_LENGTH,
  );
}

/** `text` with each secret replaced by the mask. */
export function maskText(text: string, secrets: readonly string[]): string {
  return secrets.reduce((acc, secret) => (acc.includes(secret) ? acc.split(secret).join(MASK) : acc), text);
}

/** Every string inside `value` (keys too) with each secret replaced by the mask; other values as they are. */
export function maskDeep(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  const text = (s: string) => maskText(s, secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, inner]) => [text(k), walk(inner)]));
    return v;
  };
  return walk(value);
}

/** Where text may be cut without cutting a secret: before the last (longest - 1) characters and before any secret spanning that point. */
function safeCut(text: string, secrets: readonly string[]): number {
  let cut = Math.max(0, text.length - ((secrets[0]?.length ?? 1) - 1));
  for (let moved = true; moved; ) {
    moved = false;
    for (const secret of secrets) {
      const at = text.indexOf(secret, Math.max(0, cut - secret.length + 1));
      if (at !== -1 && at < cut) {
        cut = at;
        moved = true;
      }
    }
  }
  return cut;
}

/**
 * Masks text that arrives in pieces: a secret may be cut between two pieces, so `push` passes on only
 * what no secret can still reach into and keeps the rest (at most the longest secret's length - 1
 * characters, more only while a secret spans the cut) until the next piece or `flush`.
 * `secrets` as from logSecretList (longest first).
 */
export function streamMask(secrets: readonly string[]): { push(text: string): string; flush(): string } {
  let held = '';
  return {
    push(text) {
      held += text;
      const cut = safeCut(held, secrets);
      const out = maskText(held.slice(0, cut), secrets);
      held = held.slice(cut);
      return out;
    },
    flush() {
      const out = maskText(held, secrets);
      held = '';
      return out;
    },
  };
}
