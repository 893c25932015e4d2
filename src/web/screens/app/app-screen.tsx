import { useCallback, useEffect, useState } from 'preact/hooks';
import { roleAllows } from '../../../shared/roles.ts';
import { ApiError, type DeleteOptions, type UserT } from '../../api.ts';
import { appNameOf, jobsPath } from '../../app-paths.ts';
import { DeleteApp } from '../../components/delete-app.tsx';
import { JobSeen } from '../../components/job-progress.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { FailureLine, JobLine, StackActions } from '../../components/stack-actions.tsx';
import { CheckUpdateButton, UpdateState } from '../../components/update-state.tsx';
import { usePolled } from '../../components/use-polled.ts';
import { isBusy, useStackJobs } from '../../components/use-stack-jobs.ts';
import { isMessageKey, t } from '../../i18n.ts';
import { navigate, onLinkClick } from '../../router.ts';
import { getStackDetail, type StackDetailT } from './app-api.ts';
import type { Tab } from './app-path.ts';
import { TabList, useHashTab, useVisited } from './app-tabs.tsx';
import { BackupsTab } from './backups-tab.tsx';
import { ConfigureTab } from './configure/configure-tab.tsx';
import { FilesRefusal } from './files-refusal.tsx';
import { FilesTab } from './files-tab.tsx';
import { OverviewTab } from './overview-tab.tsx';
import '../../components/stack.css';
import './app.css';

/**
 * One installed app: its status and actions on top, then Overview, Configure, Files and Backups as tabs. The app's
 * state is read again whenever a job of the app starts or ends, whether the header or a tab started it, so the
 * status and the failure line never wait for the next poll.
 */
export function AppScreen({ user, path }: { user: UserT; path: string }) {
  const name = appNameOf(path) ?? '';
  const fetcher = useCallback(() => getStackDetail(name), [name]);
  const { data: stack, error, reload } = usePolled(fetcher, 5000);
  const { byStack, run, dismiss } = useStackJobs(reload);
  const [tab, selectTab, tabs] = useHashTab(user.role);
  const visited = useVisited(tab);
  const missing = error instanceof ApiError && error.code === 'not_found';
  const canOperate = roleAllows(user.role, 'operator');
  const [deleting, setDeleting] = useState(false);
  const [deleted, setDeleted] = useState(false);
  // Once the delete job has removed the app, its view has nothing left to show: back to the list.
  useEffect(() => {
    if (deleted && missing) navigate('/apps');
  }, [deleted, missing]);
  const remove = (opts: DeleteOptions) => {
    setDeleting(false);
    setDeleted(true);
    void run(name, 'delete', opts);
  };

  return (
    <JobSeen.Provider value={reload}>
      <section class="page appview" aria-labelledby="page-title">
        <p class="appview-back">
          <a href="/apps" onClick={onLinkClick}>
            <span aria-hidden="true">← </span>
            {t('appview.back')}
          </a>
        </p>
        <div class="appview-head">
          <h1 id="page-title" tabIndex={-1}>
            {name}
          </h1>
          {stack && <StatusLine stack={stack} />}
          {stack?.url && (
            <a class="appview-open" href={stack.url} target="_blank" rel="noopener noreferrer" aria-label={t('apps.open_label', { name })}>
              {t('apps.open')} <span aria-hidden="true">↗</span>
            </a>
          )}
          {stack && stack.status !== 'missing_compose' && roleAllows(user.role, 'operator') && (
            <StackActions stack={stack} busy={isBusy(byStack[name])} onAction={(n, action) => void run(n, action)} />
          )}
          {stack && canOperate && !deleting && (
            <button type="button" class="btn btn-small btn-quiet btn-danger" aria-label={t('apps.delete_label', { name })} onClick={() => setDeleting(true)}>
              {t('apps.delete')}
            </button>
          )}
        </div>
        {deleting && <DeleteApp name={name} onConfirm={remove} onCancel={() => setDeleting(false)} />}
        {stack?.failure && !byStack[name] && (
          <FailureLine stack={stack} canOperate={canOperate} onRetry={() => void run(name, 'start')} onRemove={() => setDeleting(true)} />
        )}
        {stack && <MetaLine stack={stack} />}
        {stack && stack.status !== 'missing_compose' && (
          <div class="stack-update appview-update">
            <UpdateState stack={stack} />
            {canOperate && <CheckUpdateButton name={name} onChecked={reload} since={byStack[name]?.job?.id ?? ''} />}
          </div>
        )}
        {stack && stack.status !== 'missing_compose' && <FilesRefusal name={name} user={user} onAccepted={reload} />}
        <JobLine name={name} tracked={byStack[name]} onDismiss={dismiss} />
        {/* A failed refresh keeps the last known state on screen, with the reason above it. */}
        <LoadState error={error} loading={stack === null} text={t('appview.loading')} />
        {stack && !missing && <AppTabs name={name} stack={stack} user={user} at={{ tab, tabs, visited, selectTab }} onRestored={reload} />}
      </section>
    </JobSeen.Provider>
  );
}

interface TabsAt {
  tab: Tab;
  tabs: readonly Tab[];
  visited: ReadonlySet<Tab>;
  selectTab: (tab: Tab) => void;
}

/** The tabs of the app; a tab is mounted on its first visit and then only hidden, so unsaved edits survive a look at another tab. */
function AppTabs(p: { name: string; stack: StackDetailT; user: UserT; at: TabsAt; onRestored: () => void }) {
  const { name, stack, user, onRestored } = p;
  const { tab, tabs, visited, selectTab } = p.at;
  return (
    <>
      <TabList tabs={tabs} current={tab} visited={visited} onSelect={selectTab} />
      {tabs
        .filter((k) => visited.has(k))
        .map((k) => (
          <div key={k} class="appview-panel" role="tabpanel" id={`appview-panel-${k}`} aria-labelledby={`appview-tab-${k}`} hidden={k !== tab}>
            {k === 'overview' && <OverviewTab stack={stack} user={user} />}
            {k === 'configure' && <ConfigureTab name={name} user={user} filesVersion={stack.files_version} templateUpdate={stack.template_update} />}
            {k === 'files' && <FilesTab name={name} user={user} filesVersion={stack.files_version} />}
            {k === 'backups' && <BackupsTab name={name} user={user} onRestored={onRestored} />}
          </div>
        ))}
    </>
  );
}

function StatusLine({ stack }: { stack: StackDetailT }) {
  const { status } = stack;
  return (
    <p class="stack-status appview-status">
      <span class={`dot dot-${status}`} aria-hidden="true" />
      <span class="sr-only">{t('apps.status_label')}: </span>
      <span>{t(`status.${status}`)}</span>
    </p>
  );
}

/** Where the app came from, and a warning about its folder when there is one. */
function MetaLine({ stack }: { stack: StackDetailT }) {
  const parts: string[] = [t('apps.services', { count: stack.services.length })];
  if (stack.source) parts.push(t('apps.source', { repo: stack.source.repo, app: stack.source.app }));
  if (stack.adopted) parts.push(t('apps.adopted'));
  const warningKey = stack.warning ? `stack.warning.${stack.warning}` : '';
  return (
    <>
      <p class="stack-meta appview-meta">
        {parts.join(' · ')}
        <a href={jobsPath({ app: stack.name })} onClick={onLinkClick}>
          {t('jobs.of_app')}
        </a>
      </p>
      {stack.warning && <p class="stack-warning">{isMessageKey(warningKey) ? t(warningKey) : stack.warning}</p>}
    </>
  );
}
