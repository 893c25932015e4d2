/**
 * Wall-clock time in an IANA zone (the TIMEZONE setting), whatever zone the process runs in. A calendar day
 * is `{ y, m, d }` (m 1-12) in that zone; an hour of it maps to one instant, also across a daylight-saving change.
 * Zone `null` is the process's own clock (TZ): read without Intl, whose zone data costs some 9 MiB resident once
 * loaded, so a Kade whose TIMEZONE is its own zone (the default) never loads it for its schedule.
 */

/** An IANA zone name, or null for the process's own clock. */
export type Zone = string | null;

export interface Day {
  y: number;
  m: number;
  d: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, f);
  }
  return f;
}

/** The wall clock in `zone` at `t` (ms), as if it were UTC: its difference to `t` is the zone's offset then. */
function wallAsUtc(t: number, zone: Zone): number {
  if (zone === null) {
    const x = new Date(t);
    return Date.UTC(x.getFullYear(), x.getMonth(), x.getDate(), x.getHours(), x.getMinutes(), x.getSeconds());
  }
  const p: Record<string, number> = {};
  for (const part of formatOf(zone).formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
}

const offsetAt = (t: number, zone: Zone): number => wallAsUtc(t, zone) - Math.floor(t / 1000) * 1000;

/** The calendar day in `zone` at `t`. */
export function dayIn(t: Date, zone: Zone): Day {
  const w = new Date(wallAsUtc(t.getTime(), zone));
  return { y: w.getUTCFullYear(), m: w.getUTCMonth() + 1, d: w.getUTCDate() };
}

/** The day `n` days after `day` (n may be negative). */
export function addDays(day: Day, n: number): Day {
  const w = new Date(Date.UTC(day.y, day.m - 1, day.d + n));
  return { y: w.getUTCFullYear(), m: w.getUTCMonth() + 1, d: w.getUTCDate() };
}

/** 0 = Sunday … 6 = Saturday, as `Date.getDay`. */
export const weekdayOf = (day: Day): number => new Date(Date.UTC(day.y, day.m - 1, day.d)).getUTCDay();

/**
 * The first instant at which the clock in `zone` reads `hour`:00 on `day`. An hour skipped by a change to summer
 * time is the instant of the change (the clock jumps past it); an hour that comes twice is its first time.
 */
export function atHour(day: Day, hour: number, zone: Zone): Date {
  const wall = Date.UTC(day.y, day.m - 1, day.d, hour);
  // The zone's offsets a day either side: two values around a change, else one.
  const offsets = [...new Set([offsetAt(wall - 86_400_000, zone), offsetAt(wall + 86_400_000, zone)])];
  const exact = offsets
    .map((o) => wall - o)
    .filter((t) => wallAsUtc(t, zone) === wall)
    .sort((a, b) => a - b);
  if (exact[0] !== undefined) return new Date(exact[0]);
  // Skipped: the wall time with the offset before the change is the moment the clock jumped.
  return new Date(wall - Math.min(...offsets));
}
