import { t } from '../../i18n.ts';
import type { RepoT } from './repos-api.ts';

/** The element id the store links to (`/repos#skipped-<id>`). */
export const skippedAnchor = (repoId: string) => `skipped-${repoId}`;

/** The app folders of a repo that failed validation, each with the server's reason. */
export function RepoSkipped({ repo }: { repo: RepoT }) {
  const n = repo.skipped.length;
  if (n === 0) return null;
  return (
    <section class="repo-skipped" id={skippedAnchor(repo.id)} tabIndex={-1} aria-label={t('repos.skipped_many', { count: n })}>
      <p>
        <strong>{n === 1 ? t('repos.skipped_one') : t('repos.skipped_many', { count: n })}</strong>
      </p>
      <ul>
        {repo.skipped.map((s) => (
          <li key={s.app}>
            <code>{s.app || t('repos.skipped_folder')}</code> {s.reason}
          </li>
        ))}
      </ul>
      <p class="muted">{t('repos.skipped_fix')}</p>
    </section>
  );
}
