import { useState } from 'preact/hooks';
import type { StackT } from '../../../shared/api.ts';
import type { DeleteOptions, StackAction } from '../../api.ts';
import { appPath } from '../../app-paths.ts';
import { DeleteApp } from '../../components/delete-app.tsx';
import { LogsPanel } from '../../components/logs-panel.tsx';
import { FailureLine, JobLine, StackActions } from '../../components/stack-actions.tsx';
import { CheckUpdateButton, UpdateState } from '../../components/update-state.tsx';
import { isBusy, type TrackedJob } from '../../components/use-stack-jobs.ts';
import { isMessageKey, t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';
import { RepoStatus } from './repo-status.tsx';

interface Props {
  stack: StackT;
  tracked: TrackedJob | undefined;
  canOperate: boolean;
  onAction: (name: string, action: StackAction, opts?: DeleteOptions) => void;
  onDismiss: (name: string) => void;
  /** A user's update check answered: the list is asked again. */
  onChecked: () => void;
}

export function StackRow({ stack, tracked, canOperate, onAction, onDismiss, onChecked }: Props) {
  const { name, status } = stack;
  const broken = status === 'missing_compose';
  const busy = isBusy(tracked);
  const headingId = `stack-${name}`;
  const [logs, setLogs] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const remove = (opts: DeleteOptions) => {
    setDeleting(false);
    onAction(name, 'delete', opts);
  };
  return (
    <li class="stack" aria-labelledby={headingId} data-status={status}>
      <div class="stack-main">
        <h2 class="stack-name" id={headingId}>
          <a href={appPath(name)} onClick={onLinkClick}>
            {name}
          </a>
        </h2>
        <StackMeta stack={stack} />
        {!broken && (
          <div class="stack-update">
            <UpdateState stack={stack} />
            {canOperate && <CheckUpdateButton name={name} onChecked={onChecked} since={tracked?.job?.id ?? ''} />}
          </div>
        )}
      </div>
      <p class="stack-status">
        <span class={`dot dot-${status}`} aria-hidden="true" />
        <span class="sr-only">{t('apps.status_label')}: </span>
        {broken ? (
          <>
            <span aria-hidden="true">—</span>
            <span class="sr-only">{t('status.missing_compose')}</span>
          </>
        ) : (
          <span>{t(`status.${status}`)}</span>
        )}
      </p>
      <div class="stack-link">
        {stack.url && (
          <a href={stack.url} target="_blank" rel="noopener noreferrer" aria-label={t('apps.open_label', { name })}>
            {t('apps.open')} <span aria-hidden="true">↗</span>
          </a>
        )}
      </div>
      {!broken && canOperate && <StackActions stack={stack} busy={busy} onAction={onAction} />}
      {/* SPEC: a folder without a compose file has no action buttons in the list; its app view offers Delete. */}
      {!broken && canOperate && !deleting && (
        <p class="stack-delete">
          <button
            type="button"
            class="btn btn-small btn-quiet btn-danger"
            aria-label={t('apps.delete_label', { name })}
            aria-disabled={busy}
            onClick={() => !busy && setDeleting(true)}
          >
            {t('apps.delete')}
          </button>
        </p>
      )}
      {deleting && <DeleteApp name={name} onConfirm={remove} onCancel={() => setDeleting(false)} />}
      {stack.warning && <p class="stack-warning">{warningText(stack.warning)}</p>}
      {stack.failure && !tracked && (
        <FailureLine stack={stack} canOperate={canOperate} onRetry={() => onAction(name, 'start')} onRemove={() => setDeleting(true)} />
      )}
      {!broken && (
        <div class="stack-logs">
          <button type="button" class="btn btn-small btn-quiet" aria-expanded={logs} aria-label={t('apps.logs_label', { name })} onClick={() => setLogs(!logs)}>
            {logs ? t('apps.logs_hide') : t('apps.logs')}
          </button>
          {logs && <LogsPanel base={`/api/stacks/${encodeURIComponent(name)}`} name={name} />}
        </div>
      )}
      <JobLine name={name} tracked={tracked} onDismiss={onDismiss} />
    </li>
  );
}

function StackMeta({ stack }: { stack: StackT }) {
  const parts: string[] = [t('apps.services', { count: stack.services.length })];
  if (stack.source) parts.push(t('apps.source', { repo: stack.source.repo, app: stack.source.app }));
  if (stack.adopted) parts.push(t('apps.adopted'));
  return (
    <p class="stack-meta">
      {parts.join(' · ')}
      {stack.repo_status?.outdated && (
        <span class="badge badge-outdated" title={t('apps.repo_outdated_hint')}>
          {t('apps.repo_outdated')}
        </span>
      )}
      {stack.source && stack.repo_status === null && <span class="badge badge-outdated">{t('apps.repo_missing')}</span>}
      {stack.repo_status && <RepoStatus status={stack.repo_status} />}
    </p>
  );
}

/** Warnings arrive as codes; an unknown one is shown as sent. */
function warningText(code: string): string {
  const key = `stack.warning.${code}`;
  return isMessageKey(key) ? t(key) : code;
}
