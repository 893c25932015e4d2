/**
 * The address to put in a link's href, or null when it must be shown as text only: http(s) addresses alone.
 * A credential's `url` is a value an app's template or `.env` chose; `javascript:`, `data:` and the like would
 * run in Kade's page on a click (the CSP is the second line, not the first).
 */
export function httpHref(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url.href : null;
}
