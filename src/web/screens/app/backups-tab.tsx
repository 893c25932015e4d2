import { useCallback, useState } from 'preact/hooks';
import { roleAllows } from '../../../shared/roles.ts';
import type { UserT } from '../../api.ts';
import { BackupList, DeletedNotice } from '../../components/backup-list.tsx';
import { BackupNow } from '../../components/backup-now.tsx';
import { type BackupT, listBackups } from '../../components/backups-api.ts';
import { LoadState } from '../../components/load-state.tsx';
import { usePolled } from '../../components/use-polled.ts';
import { t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';

const POLL_MS = 30_000;

/** The app's backups with their actions, and "Back up now" for operators; the job's progress and log in place. */
export function BackupsTab({ name, user, onRestored }: { name: string; user: UserT; onRestored: () => void }) {
  const fetcher = useCallback(() => listBackups(name), [name]);
  const { data: backups, error, reload } = usePolled(fetcher, POLL_MS);
  const [deleted, setDeleted] = useState<BackupT | null>(null);
  const canOperate = roleAllows(user.role, 'operator');
  return (
    <div class="appview-stack">
      <section class="card appview-card" aria-labelledby="appview-backups">
        <h2 id="appview-backups">{t('backups.tab_title')}</h2>
        <p class="muted small">{t('backups.tab_intro')}</p>
        {canOperate && (
          <BackupNow
            stack={name}
            onEnd={() => {
              setDeleted(null);
              reload();
            }}
          />
        )}
        <DeletedNotice deleted={deleted} />
        <LoadState error={error} loading={backups === null} text={t('backups.loading')} />
        {backups?.length === 0 && <p class="appview-empty">{t('backups.tab_none')}</p>}
        {backups && backups.length > 0 && (
          <BackupList
            backups={backups}
            canOperate={canOperate}
            canDownload={roleAllows(user.role, 'admin')}
            onChanged={reload}
            onDeleted={(b) => {
              setDeleted(b);
              reload();
            }}
            onRestored={onRestored}
            label={t('backups.list_label', { name })}
          />
        )}
        <p class="appview-backups-all">
          <a href="/backups" onClick={onLinkClick}>
            {t('backups.all_link')}
          </a>
        </p>
      </section>
    </div>
  );
}
