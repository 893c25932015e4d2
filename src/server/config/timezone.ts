import { readFileSync, readlinkSync } from 'node:fs';

/** The server's own time zone: TZ, then /etc/timezone, then the /etc/localtime link, else UTC. */
export function detectTimezone(tz: string | undefined, files = { timezone: '/etc/timezone', localtime: '/etc/localtime' }): string {
  const valid = (s: string | undefined): s is string => !!s && /^[A-Za-z0-9_+\-/]{1,64}$/.test(s) && !s.includes('..');
  const fromEnv = tz?.replace(/^:/, '').replace(/^\/usr\/share\/zoneinfo\//, '');
  if (valid(fromEnv)) return fromEnv;
  try {
    const t = readFileSync(files.timezone, 'utf8').trim();
    if (valid(t)) return t;
  } catch {
    // no /etc/timezone: try the link next
  }
  try {
    const m = /zoneinfo\/(.+)$/.exec(readlinkSync(files.localtime));
    if (valid(m?.[1])) return m[1];
  } catch {
    // not a link either
  }
  return 'UTC';
}
