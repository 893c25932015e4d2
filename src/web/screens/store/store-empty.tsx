import { t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';

/**
 * Why the store has no apps at all: no repository yet, or repositories that hold none (not fetched,
 * failed, or the apps folder is wrong). Admins get the way to fix it; others are told whom to ask.
 */
export function StoreEmpty({ repoCount, isAdmin }: { repoCount: number; isAdmin: boolean }) {
  if (repoCount === 0) {
    return (
      <div class="empty card store-empty">
        <p>{t('store.empty_no_repo')}</p>
        {isAdmin ? (
          <a href="/repos" class="btn btn-primary" onClick={onLinkClick}>
            {t('store.empty_add_repo')}
          </a>
        ) : (
          <p>{t('store.empty_ask_admin')}</p>
        )}
      </div>
    );
  }
  return (
    <div class="empty card store-empty">
      <p>{t('store.empty_no_apps', { count: repoCount })}</p>
      <a href="/repos" class="btn" onClick={onLinkClick}>
        {t('store.empty_to_repos')}
      </a>
    </div>
  );
}

/** Apps exist, but none passes the filter: say so and offer the way back. */
export function StoreNoMatch({ total, onClear }: { total: number; onClear: () => void }) {
  return (
    <div class="empty card store-empty">
      <p>{t('store.empty_filter', { total })}</p>
      <button type="button" class="btn btn-primary" onClick={onClear}>
        {t('store.clear')}
      </button>
    </div>
  );
}
