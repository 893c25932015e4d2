/**
 * The addresses of screens that other screens link to, with the patterns routes.tsx matches them by;
 * here so that a screen links to another without importing it.
 */

/** The view of one installed app: /apps/{name}; the tab lives in the hash so a reload keeps it. */
export const APP_PATH = /^\/apps\/([^/]+)\/?$/;

export const appPath = (name: string): string => `/apps/${encodeURIComponent(name)}`;

/** The app name of a path that matched APP_PATH; null for any other path. */
export function appNameOf(path: string): string | null {
  const m = APP_PATH.exec(path);
  if (!m?.[1]) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    // A malformed escape: no such app, which the screen then reports as not found.
    return m[1];
  }
}

/** `/store/{repo}/{app}/install`: the address of the install form of one app of the store. */
export const INSTALL_PATH = /^\/store\/([^/]+)\/([^/]+)\/install\/?$/;
export const installPath = (repo: string, app: string): string => `/store/${encodeURIComponent(repo)}/${encodeURIComponent(app)}/install`;

/** The jobs screen, narrowed to one app, with one job's log open. */
export function jobsPath(opts: { app?: string; job?: string } = {}): string {
  const q = new URLSearchParams();
  if (opts.app) q.set('app', opts.app);
  if (opts.job) q.set('job', opts.job);
  const s = q.toString();
  return s ? `/jobs?${s}` : '/jobs';
}
