import type { RepoCacheStatusT } from '../../../shared/api.ts';
import { formatDateTime } from '../../components/format-date-time.ts';
import { t } from '../../i18n.ts';
import './repo-status.css';

/** An app's template repo as the cache holds it (SPEC, Repo cache status): commit and its date, last synchronisation, VERSION. */
export function RepoStatus({ status }: { status: RepoCacheStatusT }) {
  const parts = [
    status.commit
      ? t('apps.repo_commit', { commit: status.commit.slice(0, 7), date: status.commit_date ? formatDateTime(status.commit_date) : t('apps.repo_unknown') })
      : t('apps.repo_no_commit'),
    status.synced_at ? t('apps.repo_synced', { time: formatDateTime(status.synced_at) }) : t('apps.repo_never_synced'),
    t('apps.repo_version', { version: status.version ?? t('apps.repo_unknown') }),
  ];
  return <span class="stack-repo">{parts.join(' · ')}</span>;
}
