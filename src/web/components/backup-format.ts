import type { Lang } from '../i18n.ts';

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;
const localeOf = (lang: Lang) => (lang === 'nl' ? 'nl-NL' : 'en-GB');

/**
 * Bytes for people, in steps of 1024 as the server counts DISK_MIN_FREE_GB: `0 B`, `512 B`, `1.5 MB`,
 * one decimal below ten units and none above, with the language's decimal sign.
 */
export function formatBytes(bytes: number, lang: Lang): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  const text = new Intl.NumberFormat(localeOf(lang), { maximumFractionDigits: digits, minimumFractionDigits: 0 }).format(value);
  return `${text} ${UNITS[unit]}`;
}

/** A percentage as the language writes it, with at most one decimal: `87,5%` in nl, `87.5%` in en. */
export function formatPct(pct: number, lang: Lang): string {
  return `${new Intl.NumberFormat(localeOf(lang), { maximumFractionDigits: 1 }).format(pct)}%`;
}

/** A moment as date and time to the second (two backups can fall in one minute) in the language; the text itself when it is not a date. */
export function formatWhen(iso: string, lang: Lang): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(localeOf(lang), { dateStyle: 'medium', timeStyle: 'medium' });
}

/** The disk bar turns red at DISK_WARN_PCT and above (SPEC Limits: disk). */
export const diskWarns = (d: { used_pct: number; warn_pct: number }): boolean => d.used_pct >= d.warn_pct;

/** What a backup that would leave less than DISK_MIN_FREE_GB free meets: a refusal before anything is written. */
export const diskBelowMinimum = (d: { free: number; min_free_gb: number }): boolean => d.free < d.min_free_gb * 1024 ** 3;
