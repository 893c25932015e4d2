import { kindLabel } from '../../components/job-kind.ts';
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

const ROLES = new Set(['admin', 'operator', 'viewer']);

/** One detail value in words where it is one of Kade's own (yes/no, a reason, a role, a job kind); else as stored. */
function detailValue(key: string, v: string | number | boolean): string {
  if (typeof v === 'boolean') return t(v ? 'audit.value.yes' : 'audit.value.no');
  const s = String(v);
  if (key === 'kind') return kindLabel(s);
  if ((key === 'role' || key === 'from' || key === 'to') && ROLES.has(s)) return t(`role.${s as 'admin' | 'operator' | 'viewer'}`);
  const known = `audit.value.${key}.${s}`;
  return isMessageKey(known) ? t(known) : s;
}

/** Detail values as short `key: value` pairs for the target column, the keys and Kade's own values translated. */
export function detailText(detail: Record<string, string | number | boolean> | null): string {
  if (!detail) return '';
  return Object.entries(detail)
    .map(([k, v]) => {
      const key = `audit.detail.${k}`;
      return `${isMessageKey(key) ? t(key) : k}: ${detailValue(k, v)}`;
    })
    .join(' · ');
}
