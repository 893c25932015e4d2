import { formatDateTime } from '../../components/format-date-time.ts';
import { t } from '../../i18n.ts';
import type { RepoT } from './repos-api.ts';

/** Where a repo comes from and what its cache holds: commit, dates, VERSION, and why it is outdated. */
export function RepoDetails({ repo, kadeVersion }: { repo: RepoT; kadeVersion: string | null }) {
  const s = repo.status;
  return (
    <>
      <dl class="repo-details">
        <div class="repo-url">
          <dt>{t('repos.url')}</dt>
          <dd>
            <code>{repo.url}</code>
          </dd>
        </div>
        <div>
          <dt>{t('repos.branch')}</dt>
          <dd>
            <code>{repo.branch}</code>
            {repo.pinned_commit && <span class="repo-pin">{t('repos.pinned', { commit: repo.pinned_commit.slice(0, 12) })}</span>}
          </dd>
        </div>
        <div>
          <dt>{t('repos.subdirectory')}</dt>
          <dd>{repo.subdirectory ? <code>{repo.subdirectory}</code> : t('repos.top_level')}</dd>
        </div>
        <div>
          <dt>{t('repos.commit')}</dt>
          <dd>{s.commit ? <code title={s.commit}>{s.commit.slice(0, 7)}</code> : t('repos.none')}</dd>
        </div>
        <div>
          <dt>{t('repos.commit_date')}</dt>
          <dd>{s.commit_date ? formatDateTime(s.commit_date) : t('repos.none')}</dd>
        </div>
        <div>
          <dt>{t('repos.synced')}</dt>
          <dd>{s.synced_at ? formatDateTime(s.synced_at) : t('repos.never')}</dd>
        </div>
        <div>
          <dt>{t('repos.version')}</dt>
          <dd>
            {s.version ? <code>{s.version}</code> : t('repos.none')}
            {repo.outdated && <span class="badge repo-outdated">{t('repos.outdated')}</span>}
          </dd>
        </div>
      </dl>
      {repo.outdated && (
        <p class="repo-outdated-why">
          {kadeVersion
            ? t('repos.outdated_why', { version: s.version ?? '?', current: kadeVersion })
            : t('repos.outdated_why_plain', { version: s.version ?? '?' })}
        </p>
      )}
    </>
  );
}
