import { isMessageKey, t } from '../i18n.ts';

/** A job kind in words ("Install", "Backup"; the jobs screen, the audit log); a kind this interface does not know is shown as sent. */
export function kindLabel(kind: string): string {
  const key = `jobs.kind.${kind}`;
  return isMessageKey(key) ? t(key) : kind;
}
