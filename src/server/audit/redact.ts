/**
 * The audit log is read by every admin and kept for long, so a secret must never reach it, even when
 * a service puts one in an event's detail by mistake. Keys are judged by name, erring on the safe side:
 * `bypass` or `hash_algorithm` are dropped too, which costs a little context and never leaks a value.
 */
// Stems that mark a secret anywhere in a key, also glued to other words (`adminpassword`, `apitoken`).
const SECRET_STEMS = /pass|pwd|secret|token|apikey|credential|cookie|csrf|bearer/;
// Short words that only mark a secret as a whole word, so `monkey`, `author` or `sessions_ended` stay.
const SECRET_WORDS = new Set(['key', 'hash', 'salt', 'auth', 'authorization', 'otp', 'cert', 'sid', 'signature', 'private']);

// user:password@ in an address; the user name alone may stay, the rest goes.
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi;

const MAX_VALUE = 500;

export type Detail = Record<string, string | number | boolean>;

/** Whether a detail key names something secret; camelCase and snake_case alike. */
export function isSecretKey(key: string): boolean {
  const lower = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  if (SECRET_STEMS.test(lower)) return true;
  const words = lower.split(/[^a-z0-9]+/);
  // A bare `session` or `session_id` is the session itself; `sessions_ended` is a count.
  if (words.includes('session') && (words.length === 1 || words.includes('id'))) return true;
  return words.some((w) => SECRET_WORDS.has(w));
}

function safeValue(v: string | number | boolean): string | number | boolean {
  if (typeof v !== 'string') return v;
  const cleaned = v.replace(URL_USERINFO, '$1***@');
  return cleaned.length > MAX_VALUE ? `${cleaned.slice(0, MAX_VALUE)}…` : cleaned;
}

/** The detail without secret-looking keys and without credentials inside addresses; null when nothing is left. */
export function safeDetail(detail: Detail | undefined, omit: readonly string[] = []): Detail | null {
  if (!detail) return null;
  const out: Detail = {};
  for (const [k, v] of Object.entries(detail)) {
    if (isSecretKey(k) || omit.includes(k)) continue;
    out[k] = safeValue(v);
  }
  return Object.keys(out).length > 0 ? out : null;
}
