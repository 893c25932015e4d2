import { t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';

export function NotFoundScreen() {
  return (
    <section class="page" aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        {t('notfound.title')}
      </h1>
      <p>{t('notfound.text')}</p>
      <p>
        <a href="/apps" onClick={onLinkClick}>
          {t('notfound.back')}
        </a>
      </p>
    </section>
  );
}
