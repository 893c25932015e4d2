import { useId } from 'preact/hooks';
import type { Category } from '../../../shared/categories.ts';
import { t } from '../../i18n.ts';
import { categoryName } from './app-card.tsx';
import { type Counted, hasFilter, TOP_LABELS } from './store-filter.ts';
import type { StoreFilterState } from './use-store-filter.ts';

interface Props {
  state: StoreFilterState;
  /** Categories holding at least one app, in the server's order, with their number of apps. */
  categories: { category: Category; count: number }[];
  labels: Counted[];
}

/** Search, category and label; every choice shows how many apps it holds. */
export function StoreFilters({ state, categories, labels }: Props) {
  const id = useId();
  const { text, filter } = state;
  return (
    <search aria-label={t('store.filters')}>
      <form
        class="store-filters card"
        onSubmit={(e) => {
          e.preventDefault();
          state.applyText();
        }}
      >
        <div class="field store-search">
          <label for={`${id}-q`}>{t('store.search')}</label>
          <input
            id={`${id}-q`}
            type="search"
            value={text}
            onInput={(e) => state.setText(e.currentTarget.value)}
            aria-describedby={`${id}-q-hint`}
            autocomplete="off"
            spellcheck={false}
          />
          <p class="hint" id={`${id}-q-hint`}>
            {t('store.search_hint')}
          </p>
        </div>
        <div class="field">
          <label for={`${id}-cat`}>{t('store.category')}</label>
          <select id={`${id}-cat`} value={filter.category} onChange={(e) => state.setCategory(e.currentTarget.value)}>
            <option value="">{t('store.all')}</option>
            {categories.map(({ category, count }) => (
              <option key={category.id} value={category.id}>
                {t('store.option_count', { label: categoryName(category), count })}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-label`}>{t('store.label')}</label>
          <select id={`${id}-label`} value={filter.label} onChange={(e) => state.setLabel(e.currentTarget.value)} aria-describedby={`${id}-label-hint`}>
            <option value="">{t('store.all')}</option>
            {labels.map((l) => (
              <option key={l.value} value={l.value}>
                {t('store.option_count', { label: l.value, count: l.count })}
              </option>
            ))}
          </select>
          <p class="hint" id={`${id}-label-hint`}>
            {filter.q.trim() ? t('store.labels_matching') : t('store.labels_top', { count: TOP_LABELS })}
          </p>
        </div>
        <div class="store-clear">
          {(hasFilter(filter) || text !== '') && (
            <button type="button" class="btn btn-small" onClick={state.clear}>
              {t('store.clear')}
            </button>
          )}
        </div>
      </form>
    </search>
  );
}
