import { AppError } from '../core/errors.ts';

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** One meaningful line of a `.env` file; comments and blank lines are kept as `raw` only. */
interface EnvLine {
  raw: string;
  key: string | null;
  value: string;
}

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && ((t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"')))) return t.slice(1, -1);
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
 * The `.env` after a render: Kade's own variables as KEY='value' lines, followed by the user's other
 * lines and comments (added with the editor) unchanged. `managed` names every key Kade wrote before, so a secret
 * that a template no longer has is dropped instead of kept as a stray line.
 */
export function mergeEnv(oldText: string, env: Record<string, string>, managed: Set<string>): string {
  const own = Object.entries(env).map(([k, v]) => `${k}='${v}'`);
  const kept = lines(oldText)
    .filter((l) => (l.key === null ? l.raw.trim().startsWith('#') : !managed.has(l.key) && !Object.hasOwn(env, l.key)))
    .map((l) => l.raw);
  const all = [...own, ...kept];
  return all.length ? `${all.join('\n')}\n` : '';
}
