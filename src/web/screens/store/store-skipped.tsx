import { t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';
import type { RepoT } from './store-api.ts';

/** One line per repo whose templates failed validation, linking to the reasons on the repos screen. */
export function StoreSkipped({ repos }: { repos: RepoT[] }) {
  const broken = repos.filter((r) => r.skipped.length > 0);
  if (broken.length === 0) return null;
  return (
    <ul class="store-skipped" aria-live="polite">
      {broken.map((r) => {
        const n = r.skipped.length;
        return (
          <li key={r.id}>
            {n === 1 ? t('store.skipped_one', { repo: r.name }) : t('store.skipped_many', { count: n, repo: r.name })}{' '}
            <a href={`/repos#skipped-${encodeURIComponent(r.id)}`} onClick={onLinkClick} aria-label={t('store.skipped_link_label', { repo: r.name })}>
              {t('store.skipped_link')}
            </a>
          </li>
        );
      })}
    </ul>
  );
}
