import { getLang, isMessageKey, t } from '../../i18n.ts';

/*
 * Values of the log are open-ended: the server adds actions and sources over time. Known ones are
 * translated; an unknown one is shown as it is rather than hidden.
 */

export function actionLabel(action: string): string {
  const key = `audit.action.${action}`;
  return isMessageKey(key) ? t(key) : action;
}

export function sourceLabel(source: string): string {
  const key = `audit.source.${source}`;
  return isMessageKey(key) ? t(key) : source;
}

export function statusLabel(status: string): string {
  const key = `audit.status.${status}`;
  return isMessageKey(key) ? t(key) : status;
}

/** Date and time of an entry in the reader's language and time zone. */
export function formatMoment(iso: string): string {
  return new Date(iso).toLocaleString(getLang() === 'nl' ? 'nl-NL' : 'en-GB', { dateStyle: 'medium', timeStyle: 'medium' });
}

/** Detail values as short `key: value` pairs for the target column. */
export function detailText(detail: Record<string, string | number | boolean> | null): string {
  if (!detail) return '';
  return Object.entries(detail)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(' · ');
}
