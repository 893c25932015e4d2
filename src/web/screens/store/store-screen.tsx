import { useMemo } from 'preact/hooks';
import { roleAllows } from '../../../shared/roles.ts';
import type { UserT } from '../../api.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { t } from '../../i18n.ts';
import { AppCard, type CategoryLookup } from './app-card.tsx';
import { StoreEmpty, StoreNoMatch } from './store-empty.tsx';
import { categoryCounts, hasFilter, labelChoices, matches, PAGE_SIZE } from './store-filter.ts';
import { StoreFilters } from './store-filters.tsx';
import { StoreSkipped } from './store-skipped.tsx';
import type { StoreData } from './use-store.ts';
import { useStore } from './use-store.ts';
import { type StoreFilterState, useStoreFilter } from './use-store-filter.ts';
import './store.css';

/** The apps of every template repository as cards, with search and filters; operators install from a card. */
export function StoreScreen({ user }: { user: UserT }) {
  const { data, error, reload } = useStore();
  const filter = useStoreFilter();
  return (
    <section class="page" aria-labelledby="page-title">
      <PageHead title={t('store.title')}>
        <button type="button" class="btn btn-small" onClick={reload}>
          {t('store.refresh')}
        </button>
      </PageHead>
      <p class="muted store-intro">{t('store.intro')}</p>
      <ErrorMessage error={error} />
      {data !== null && <StoreSkipped repos={data.repos} />}
      {data === null && !error && (
        <p class="muted" role="status">
          {t('store.loading')}
        </p>
      )}
      {data !== null &&
        (data.apps.length === 0 ? (
          <StoreEmpty repoCount={data.repos.length} isAdmin={roleAllows(user.role, 'admin')} />
        ) : (
          <StoreBody data={data} state={filter} canInstall={roleAllows(user.role, 'operator')} />
        ))}
    </section>
  );
}

function StoreBody({ data, state, canInstall }: { data: StoreData; state: StoreFilterState; canInstall: boolean }) {
  const { apps } = data;
  const { filter, limit } = state;
  const byId = useMemo(() => new Map(data.categories.map((c) => [c.id, c])), [data.categories]);
  const category: CategoryLookup = (id) => byId.get(id);
  const counts = useMemo(() => categoryCounts(apps), [apps]);
  // Only categories that hold an app are offered, in the server's order.
  const offered = data.categories.filter((c) => counts.has(c.id)).map((c) => ({ category: c, count: counts.get(c.id) ?? 0 }));
  const labels = useMemo(() => labelChoices(apps, filter), [apps, filter]);
  const found = useMemo(() => apps.filter((a) => matches(a, filter)), [apps, filter]);
  const shown = found.slice(0, limit);
  const more = Math.min(PAGE_SIZE, found.length - shown.length);
  return (
    <>
      <StoreFilters state={state} categories={offered} labels={labels} />
      <p class="store-count muted" role="status">
        {countText(found.length, shown.length, apps.length, hasFilter(filter))}
      </p>
      {found.length === 0 ? (
        <StoreNoMatch total={apps.length} onClear={state.clear} />
      ) : (
        <ul class="store-grid" aria-label={t('store.list_label')}>
          {shown.map((a) => (
            <AppCard key={`${a.repo}/${a.app}`} app={a} category={category} canInstall={canInstall} />
          ))}
        </ul>
      )}
      {more > 0 && (
        <div class="store-more">
          <button type="button" class="btn" onClick={state.showMore}>
            {t('store.show_more', { count: more })}
          </button>
        </div>
      )}
    </>
  );
}

function countText(matches: number, shown: number, total: number, filtered: boolean): string {
  if (!filtered) return t('store.count_all', { shown, total });
  return matches === 0 ? t('store.count_none', { total }) : t('store.count_match', { shown, matches, total });
}
