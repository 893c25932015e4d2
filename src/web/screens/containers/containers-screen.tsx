import { roleAllows } from '../../../shared/roles.ts';
import type { UserT } from '../../api.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime, t } from '../../i18n.ts';
import { ContainerRow } from './container-row.tsx';
import { useContainers } from './use-containers.ts';
import './containers.css';

/** Every container on the host: managed by an app or not, Kade's own flagged; operate, inspect, read logs. */
export function ContainersScreen({ user }: { user: UserT }) {
  const { containers, error, checkedAt, reload } = useContainers();
  // Viewers may look but not act; hiding the buttons is kinder than a refusal after every click.
  const canOperate = roleAllows(user.role, 'operator');
  const running = containers?.filter((c) => c.state === 'running').length ?? 0;

  return (
    <section class="page" aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1}>
          {t('containers.title')}
        </h1>
        <div class="page-tools">
          {checkedAt && <p class="muted small">{t('containers.checked_at', { time: formatTime(checkedAt) })}</p>}
          <button type="button" class="btn btn-small" onClick={reload}>
            {t('containers.refresh')}
          </button>
        </div>
      </div>
      <ErrorMessage error={error} />
      {containers === null && !error && (
        <p class="muted" role="status">
          {t('containers.loading')}
        </p>
      )}
      {containers !== null && containers.length === 0 && (
        <div class="empty card">
          <p>{t('containers.empty')}</p>
        </div>
      )}
      {containers !== null && containers.length > 0 && (
        <>
          <p class="muted small ctr-summary">{t('containers.summary', { count: containers.length, running })}</p>
          <ul class="ctr-list" aria-label={t('containers.list_label')}>
            {containers.map((c) => (
              <ContainerRow key={c.id} container={c} canOperate={canOperate} onChanged={reload} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
