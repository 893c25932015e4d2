import { useId, useState } from 'preact/hooks';
import type { JobT } from '../../../shared/api.ts';
import { roleAllows } from '../../../shared/roles.ts';
import type { UserT } from '../../api.ts';
import { appPath } from '../../app-paths.ts';
import { formatDateTime } from '../../components/format-date-time.ts';
import { kindLabel } from '../../components/job-kind.ts';
import { JobProgress } from '../../components/job-progress.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';
import { durationText, stateLabel } from './job-labels.ts';
import type { JobFacetsT, JobFilters } from './jobs-api.ts';
import { useJobs } from './use-jobs.ts';
import '../../components/filter-bar.css';
import './jobs.css';

/** Past and running jobs (installs, updates, backups, restores, …): filtered by app, kind and state; each log can be opened. */
export function JobsScreen({ user }: { user: UserT }) {
  const j = useJobs();
  const filtered = j.filters.app !== '' || j.filters.kind !== '' || j.filters.state !== '';
  return (
    <section class="page" aria-labelledby="page-title">
      <PageHead title={t('jobs.title')}>
        <button type="button" class="btn btn-small" onClick={j.reload}>
          {t('jobs.refresh')}
        </button>
      </PageHead>
      <p class="muted jobs-intro">{t('jobs.intro')}</p>
      <JobFilterBar filters={j.filters} facets={j.facets} onFilter={j.setFilter} onClear={filtered ? j.clear : null} />
      <LoadState error={j.error} loading={j.jobs === null} text={t('jobs.loading')} />
      {j.jobs?.length === 0 && (
        <div class="empty card" role="status">
          <p>{filtered ? t('jobs.empty_match') : t('jobs.empty')}</p>
        </div>
      )}
      {j.jobs && j.jobs.length > 0 && (
        <ul class="jobs-list card" aria-label={t('jobs.list_label')}>
          {j.jobs.map((job) => (
            <JobRow key={job.id} job={job} admin={roleAllows(user.role, 'admin')} startOpen={job.id === j.open} />
          ))}
        </ul>
      )}
      {j.more && (
        <p class="jobs-more">
          <button type="button" class="btn btn-small" onClick={() => void j.more?.()}>
            {t('jobs.more')}
          </button>
        </p>
      )}
    </section>
  );
}

// The states a job can be found in afterwards ('queued' lasts no time); a value import of shared/api.ts would load zod.
const FILTER_STATES: readonly JobT['state'][] = ['running', 'succeeded', 'failed', 'interrupted'];

interface BarProps {
  filters: JobFilters;
  facets: JobFacetsT | null;
  onFilter: (key: keyof JobFilters, value: string) => void;
  onClear: (() => void) | null;
}

function JobFilterBar({ filters, facets, onFilter, onClear }: BarProps) {
  const id = useId();
  // A value from the address stays choosable even when no job of it exists (any more).
  const withCurrent = (values: readonly string[], current: string) => (current && !values.includes(current) ? [current, ...values] : values);
  const selects = [
    {
      key: 'app' as const,
      label: t('jobs.filter.app'),
      all: t('jobs.filter.all_apps'),
      values: withCurrent(facets?.stacks ?? [], filters.app),
      text: (v: string) => v,
    },
    {
      key: 'kind' as const,
      label: t('jobs.filter.kind'),
      all: t('jobs.filter.all_kinds'),
      values: withCurrent(facets?.kinds ?? [], filters.kind),
      text: kindLabel,
    },
    {
      key: 'state' as const,
      label: t('jobs.filter.state'),
      all: t('jobs.filter.all_states'),
      values: FILTER_STATES,
      text: (v: string) => stateLabel(v as JobT['state']),
    },
  ];
  return (
    <search aria-label={t('jobs.filters')}>
      <div class="filter-bar card">
        {selects.map((s) => (
          <div class="filter-field" key={s.key}>
            <label for={`${id}-${s.key}`}>{s.label}</label>
            <select id={`${id}-${s.key}`} value={filters[s.key]} onChange={(e) => onFilter(s.key, e.currentTarget.value)}>
              <option value="">{s.all}</option>
              {s.values.map((v) => (
                <option key={v} value={v}>
                  {s.text(v)}
                </option>
              ))}
            </select>
          </div>
        ))}
        <div class="filter-field">
          {onClear && (
            <button type="button" class="btn btn-small" onClick={onClear}>
              {t('jobs.filter.clear')}
            </button>
          )}
        </div>
      </div>
    </search>
  );
}

function JobRow({ job, admin, startOpen }: { job: JobT; admin: boolean; startOpen: boolean }) {
  const [open, setOpen] = useState(startOpen);
  const headingId = `job-${job.id}`;
  const kind = kindLabel(job.kind);
  const label = job.stack ? t('jobs.log_label_app', { kind, app: job.stack }) : t('jobs.log_label', { kind });
  return (
    <li class="job-row" aria-labelledby={headingId} data-state={job.state}>
      <div class="job-row-main">
        <h2 class="job-row-title" id={headingId}>
          {kind}
          {job.stack && (
            <>
              {' · '}
              <a href={appPath(job.stack)} onClick={onLinkClick}>
                {job.stack}
              </a>
            </>
          )}
        </h2>
        <p class="job-row-meta">
          <span class={`job-state job-state-${job.state}`}>{stateLabel(job.state)}</span>
          <span>{t('jobs.started', { time: formatDateTime(job.started_at) })}</span>
          <span>{durationText(job)}</span>
          {admin && job.user && <span>{t('jobs.by', { user: job.user })}</span>}
        </p>
        {/* With the log open, its own head says how the job ended. */}
        {job.error && !open && <p class="job-row-error">{job.error}</p>}
      </div>
      <button
        type="button"
        class="btn btn-small job-row-toggle"
        aria-expanded={open}
        aria-label={t(open ? 'jobs.hide_log_label' : 'jobs.show_log_label', { label })}
        onClick={() => setOpen(!open)}
      >
        {open ? t('jobs.hide_log') : t('jobs.show_log')}
      </button>
      {open && (
        <div class="job-row-log">
          <JobProgress job={job} label={label} />
        </div>
      )}
    </li>
  );
}
