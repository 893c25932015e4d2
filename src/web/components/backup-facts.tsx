import { getLang, t } from '../i18n.ts';
import { formatBytes, formatWhen } from './backup-format.ts';
import type { BackupT } from './backups-api.ts';

const when = (iso: string) => formatWhen(iso, getLang());

/** Whether the archive was read back whole, with when. */
export function Verified({ b }: { b: BackupT }) {
  const at = b.verified_at ? when(b.verified_at) : '';
  if (b.verified === true)
    return (
      <span class="badge backup-verified" title={t('backups.verified_at', { time: at })}>
        <span aria-hidden="true">✓ </span>
        {t('backups.verified')}
      </span>
    );
  if (b.verified === false)
    return (
      <span class="badge backup-unreadable" title={t('backups.verified_at', { time: at })}>
        <span aria-hidden="true">✗ </span>
        {t('backups.verify_failed')}
      </span>
    );
  return <span class="badge backup-unverified">{t('backups.not_verified')}</span>;
}

/** The server writes where the copy went, or `not copied: why`; null when no offsite folder is set. */
function offsiteOf(offsite: string | null): { text: string; kind: 'none' | 'failed' | 'copied' } {
  if (offsite === null) return { text: t('backups.offsite_none'), kind: 'none' };
  const m = /^not copied:\s*(.*)$/s.exec(offsite);
  if (m) return { text: t('backups.offsite_failed', { why: m[1] ?? '' }), kind: 'failed' };
  return { text: t('backups.offsite_at', { path: offsite }), kind: 'copied' };
}

const OFFSITE_CLASS = { none: 'muted', failed: 'backup-warn', copied: 'backup-path' } as const;

/** Size, databases, app data, the offsite copy and the id of a backup. */
export function Facts({ b }: { b: BackupT }) {
  const offsite = offsiteOf(b.offsite);
  const dbs = b.databases.map((d) => t('backups.database', { service: d.service, kind: d.kind })).join(', ');
  return (
    <dl class="backup-facts">
      <div>
        <dt>{t('backups.size')}</dt>
        <dd>{formatBytes(b.size, getLang())}</dd>
      </div>
      <div>
        <dt>{t('backups.databases')}</dt>
        <dd>{dbs || <span class="muted">{t('backups.databases_none')}</span>}</dd>
      </div>
      <div>
        <dt>{t('backups.appdata')}</dt>
        <dd>{b.appdata ? t('backups.appdata_yes') : t('backups.appdata_no')}</dd>
      </div>
      <div class="backup-wide">
        <dt>{t('backups.offsite')}</dt>
        <dd class={OFFSITE_CLASS[offsite.kind]}>{offsite.text}</dd>
      </div>
      <div class="backup-wide">
        <dt>{t('backups.id')}</dt>
        <dd class="backup-path">{b.id}</dd>
      </div>
    </dl>
  );
}

/** Files that could not be read: the rest was backed up; the list says which and why. */
export function Skipped({ b }: { b: BackupT }) {
  if (b.skipped.length === 0) return null;
  return (
    <details class="backup-skipped">
      <summary>{t('backups.skipped', { count: b.skipped.length })}</summary>
      <ul>
        {b.skipped.map((s) => (
          <li key={s.path}>
            <code>{s.path}</code> <span class="muted">{s.reason}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}
