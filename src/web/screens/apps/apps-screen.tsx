import { roleAllows } from '../../../shared/roles.ts';
import { ApiError, type UserT } from '../../api.ts';
import { LoadState } from '../../components/load-state.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { CheckAllButton, CheckAllPanel, useCheckAll } from '../../components/update-state.tsx';
import { useStackJobs } from '../../components/use-stack-jobs.ts';
import { formatTime, t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';
import { AdoptPanel, AdoptToggle, useAdoptPanel } from './adopt/adopt-panel.tsx';
import { StackRow } from './stack-row.tsx';
import { useStacks } from './use-stacks.ts';
import './apps.css';

/** The installed apps with their status and start/stop/restart. */
export function AppsScreen({ user }: { user: UserT }) {
  const { stacks, error, checkedAt, reload } = useStacks();
  const { byStack, run, dismiss } = useStackJobs(reload);
  // Viewers may look but not act; hiding the buttons is kinder than a refusal after every click.
  const canOperate = roleAllows(user.role, 'operator');
  const adopt = useAdoptPanel(reload);
  const checkAll = useCheckAll(reload);

  return (
    <section class="page" aria-labelledby="page-title">
      <PageHead title={t('apps.title')}>
        {checkedAt && <p class="muted small">{t('apps.checked_at', { time: formatTime(checkedAt) })}</p>}
        <button type="button" class="btn btn-small" onClick={reload}>
          {t('apps.refresh')}
        </button>
        {canOperate && stacks !== null && stacks.length > 0 && <CheckAllButton state={checkAll} />}
        {canOperate && <AdoptToggle panel={adopt} />}
      </PageHead>
      {canOperate && <CheckAllPanel state={checkAll} />}
      {canOperate && <AdoptPanel panel={adopt} />}
      <LoadState error={error} loading={stacks === null} text={t('apps.loading')} />
      {stacks !== null && stacks.length === 0 && (
        <div class="empty card">
          <p>{t('apps.empty')}</p>
          <p>
            <a href="/store" onClick={onLinkClick}>
              {t('apps.empty_store')}
            </a>
          </p>
        </div>
      )}
      {error instanceof ApiError && error.code === 'library_unreadable' && roleAllows(user.role, 'admin') && (
        <p>
          <a href="/settings" onClick={onLinkClick}>
            {t('apps.library_settings')}
          </a>
        </p>
      )}
      {stacks !== null && stacks.length > 0 && (
        <ul class="stack-list card" aria-label={t('apps.list_label')}>
          {stacks.map((s) => (
            <StackRow
              key={s.name}
              stack={s}
              tracked={byStack[s.name]}
              canOperate={canOperate}
              onAction={(name, action, opts) => void run(name, action, opts)}
              onDismiss={dismiss}
              onChecked={reload}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
