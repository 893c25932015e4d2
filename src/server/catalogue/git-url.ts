import { AppError } from '../core/errors.ts';

export type GitUrlKind = 'http' | 'ssh' | 'scp';

const SCP = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!\/\/)[A-Za-z0-9._~/-]+$/;

/**
 * Accepts only http(s), ssh:// and scp-style addresses. Everything else (ext::, file://,
 * local paths, option-like values) is refused before git ever sees it.
 */
export function checkGitUrl(raw: string): GitUrlKind {
  const url = raw.trim();
  const refuse = (why: string) => new AppError('invalid_git_url', `git URL refused: ${why}`, { params: { url: redactUrl(url) }, fields: ['url'] });
  if (url !== raw || url.length === 0) throw refuse('it is empty or has surrounding white space');
  if (url.startsWith('-')) throw refuse('it looks like a command-line option');
  if (/[\s\\]/.test(url) || [...url].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f))
    throw refuse('it contains white space or control characters');
  if (/^ext::/i.test(url) || url.includes('::')) throw refuse('the ext:: transport runs commands and is not allowed');
  if (/^file:/i.test(url)) throw refuse('file:// addresses are not allowed');
  if (/^(https?|ssh):\/\//i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refuse('it is not a valid address');
    }
    if (!parsed.hostname || parsed.hostname.startsWith('-')) throw refuse('it has no valid host');
    if (parsed.username.startsWith('-')) throw refuse('the user name looks like an option');
    // Credentials in the address would be stored and sent in clear; the token field is scoped to this host.
    if (parsed.password !== '' || (parsed.protocol !== 'ssh:' && parsed.username !== ''))
      throw refuse('it carries a user name or password; put the token in the token field instead');
    return parsed.protocol === 'ssh:' ? 'ssh' : 'http';
  }
  if (SCP.test(url)) return 'scp';
  throw refuse('only http(s)://, ssh:// and user@host:path addresses are accepted');
}

/**
 * Where a token for this URL goes: scheme, host and port (`ssh://host` for scp-style addresses, whose port is
 * always ssh's). Null for an address that cannot be read. Two URLs with the same origin may share a token.
 */
export function gitOrigin(url: string): string | null {
  const scp = SCP.test(url) ? /@([^:]+):/.exec(url) : null;
  if (scp?.[1]) return `ssh://${scp[1].toLowerCase()}`;
  try {
    const u = new URL(url);
    return u.host ? `${u.protocol}//${u.host}` : null;
  } catch {
    return null;
  }
}

/** The URL with any embedded password or token masked, for logs and answers. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z+]+:\/\/)([^@/]*)@/i, (_m, scheme: string, cred: string) =>
    cred.includes(':') ? `${scheme}${cred.split(':')[0]}:***@` : `${scheme}${cred}@`,
  );
}

/** `https://github.com/a/b.git`, `git@github.com:a/b` and `http://user@github.com/a/b/` are the same repository. */
export const sameRepo = (a: string, b: string): boolean => {
  const norm = (u: string) =>
    u
      .trim()
      .toLowerCase()
      .replace(/^[a-z+]+:\/\//, '')
      .replace(/^[^@/]+@/, '')
      .replace(/^([^/:]+):(?!\d)/, '$1/')
      .replace(/\/+$/, '')
      .replace(/\.git$/, '');
  return norm(a) === norm(b);
};
