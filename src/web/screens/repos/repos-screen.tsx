import { useEffect, useState } from 'preact/hooks';
import { roleAllows } from '../../../shared/roles.ts';
import type { UserT } from '../../api.ts';
import { jobEnded } from '../../components/job-progress.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { t } from '../../i18n.ts';
import { RepoForm } from './repo-form.tsx';
import { RepoRow } from './repo-row.tsx';
import type { JobT, RepoT } from './repos-api.ts';
import { useRepos } from './use-repos.ts';
import './repos.css';

/** A success message kept as data, so it follows a language switch. */
type Notice = { kind: 'added' | 'edited' | 'deleted'; name: string };

function noticeText(n: Notice): string {
  switch (n.kind) {
    case 'added':
      return t('repos.done_add', { name: n.name });
    case 'edited':
      return t('repos.done_edit', { name: n.name });
    case 'deleted':
      return t('repos.done_delete', { name: n.name });
  }
}

/** The template repositories: everyone sees them, operators fetch them again, admins add, edit and delete. */
export function ReposScreen({ user }: { user: UserT }) {
  const { repos, error, version, reload } = useRepos();
  const [jobs, setJobs] = useState<Record<string, JobT>>({});
  const [notice, setNotice] = useState<Notice | null>(null);
  const rights = { sync: roleAllows(user.role, 'operator'), manage: roleAllows(user.role, 'admin') };

  // The store links to /repos#skipped-<id>: once the list is there, show that part and give it the focus.
  useEffect(() => {
    if (!repos || !location.hash) return;
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    target?.scrollIntoView({ block: 'start' });
    target?.focus({ preventScroll: true });
  }, [repos]);

  const track = (id: string, job: JobT | null) => {
    setJobs((prev) => {
      const next = { ...prev };
      if (job) next[id] = job;
      else delete next[id];
      return next;
    });
    // A finished sync changed the cache status; read it back rather than guess.
    if (job && jobEnded(job)) reload();
  };
  const saved = (kind: 'added' | 'edited') => (repo: RepoT, job: JobT) => {
    setNotice({ kind, name: repo.name });
    track(repo.id, job);
    reload();
  };

  return (
    <section class="page" aria-labelledby="page-title">
      <PageHead title={t('repos.title')}>
        <button type="button" class="btn btn-small" onClick={reload}>
          {t('repos.refresh')}
        </button>
      </PageHead>
      <p class="muted repos-intro">{t('repos.intro')}</p>
      {/* Always in the page, so screen readers announce what is put into it. */}
      <div role="status" class="repos-status">
        {notice && notice.kind !== 'added' && <p class="notice">{noticeText(notice)}</p>}
      </div>
      <LoadState error={error} loading={repos === null} text={t('repos.loading')} />
      {repos !== null && repos.length === 0 && (
        <div class="empty card repos-empty">
          <p>{t('repos.empty')}</p>
          <p>{rights.manage ? t('repos.empty_admin') : t('repos.empty_ask')}</p>
        </div>
      )}
      {repos !== null && repos.length > 0 && (
        <ul class="repo-list" aria-label={t('repos.list_label')}>
          {repos.map((r) => (
            <RepoRow
              key={r.id}
              repo={r}
              rights={rights}
              kadeVersion={version}
              job={jobs[r.id]}
              onJob={track}
              onSaved={saved('edited')}
              onDeleted={(gone) => {
                setNotice({ kind: 'deleted', name: gone.name });
                track(gone.id, null);
                reload();
              }}
            />
          ))}
        </ul>
      )}
      {rights.manage && <RepoForm onSaved={saved('added')} added={notice?.kind === 'added' ? noticeText(notice) : null} />}
    </section>
  );
}
