import { useId, useState } from 'preact/hooks';
import { roleAllows } from '../../../shared/roles.ts';
import type { UserT } from '../../api.ts';
import { LoadState } from '../../components/load-state.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { formatTime, t } from '../../i18n.ts';
import { filterContainers, SHOWS, type Show } from './container-filter.ts';
import { ContainerRow } from './container-row.tsx';
import { useContainers } from './use-containers.ts';
import '../../components/filter-bar.css';
import './containers.css';

/** Every container on the host: managed by an app or not, Kade's own flagged; operate, inspect, read logs. */
export function ContainersScreen({ user }: { user: UserT }) {
  const { containers, error, checkedAt, reload } = useContainers();
  // Viewers may look but not act; hiding the buttons is kinder than a refusal after every click.
  const canOperate = roleAllows(user.role, 'operator');
  const running = containers?.filter((c) => c.state === 'running').length ?? 0;
  const [text, setText] = useState('');
  const [show, setShow] = useState<Show>('all');
  const shown = containers ? filterContainers(containers, text, show) : null;

  return (
    <section class="page" aria-labelledby="page-title">
      <PageHead title={t('containers.title')}>
        {checkedAt && <p class="muted small">{t('containers.checked_at', { time: formatTime(checkedAt) })}</p>}
        <button type="button" class="btn btn-small" onClick={reload}>
          {t('containers.refresh')}
        </button>
      </PageHead>
      <LoadState error={error} loading={containers === null} text={t('containers.loading')} />
      {containers !== null && containers.length === 0 && (
        <div class="empty card">
          <p>{t('containers.empty')}</p>
        </div>
      )}
      {containers !== null && containers.length > 0 && shown !== null && (
        <>
          <Filters text={text} onText={setText} show={show} onShow={setShow} />
          <p class="muted small ctr-summary" role="status">
            {shown.length === containers.length
              ? t('containers.summary', { count: containers.length, running })
              : t('containers.summary_shown', { shown: shown.length, count: containers.length })}
          </p>
          {shown.length === 0 ? (
            <div class="empty card">
              <p>{t('containers.no_match')}</p>
            </div>
          ) : (
            <ul class="ctr-list card" aria-label={t('containers.list_label')}>
              {shown.map((c) => (
                <ContainerRow key={c.id} container={c} canOperate={canOperate} onChanged={reload} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

/** The search over names, images and apps, and which containers to show. */
function Filters(p: { text: string; onText: (v: string) => void; show: Show; onShow: (v: Show) => void }) {
  const id = useId();
  return (
    <search class="filter-bar card" aria-label={t('containers.filters')}>
      <div class="filter-field filter-wide">
        <label for={`${id}-q`}>{t('containers.search')}</label>
        <input
          id={`${id}-q`}
          type="search"
          value={p.text}
          onInput={(e) => p.onText(e.currentTarget.value)}
          aria-describedby={`${id}-hint`}
          autocomplete="off"
          spellcheck={false}
        />
        <p class="hint" id={`${id}-hint`}>
          {t('containers.search_hint')}
        </p>
      </div>
      <div class="filter-field">
        <label for={`${id}-show`}>{t('containers.show')}</label>
        <select id={`${id}-show`} value={p.show} onChange={(e) => p.onShow(e.currentTarget.value as Show)}>
          {SHOWS.map((s) => (
            <option key={s} value={s}>
              {t(`containers.show.${s}`)}
            </option>
          ))}
        </select>
      </div>
    </search>
  );
}
