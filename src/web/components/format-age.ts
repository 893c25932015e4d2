import { getLang, t } from '../i18n.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long ago a moment was, in the current language ("3 hours ago", "3 uur geleden"); text that is no date is shown as it is. */
export function formatAge(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const ago = Math.max(0, now - at);
  const rtf = new Intl.RelativeTimeFormat(getLang() === 'nl' ? 'nl-NL' : 'en-GB', { numeric: 'auto' });
  if (ago < MINUTE) return t('age.just_now');
  if (ago < HOUR) return rtf.format(-Math.floor(ago / MINUTE), 'minute');
  if (ago < DAY) return rtf.format(-Math.floor(ago / HOUR), 'hour');
  return rtf.format(-Math.floor(ago / DAY), 'day');
}
