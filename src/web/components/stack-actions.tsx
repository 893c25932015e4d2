import type { StackT } from '../../shared/api.ts';
import type { StackAction } from '../api.ts';
import { jobsPath } from '../app-paths.ts';
import { t } from '../i18n.ts';
import { onLinkClick } from '../router.ts';
import { AlertBox, ErrorMessage } from './error-message.tsx';
import { isBusy, type TrackedJob } from './use-stack-jobs.ts';
import './stack.css';

const ACTIONS: readonly StackAction[] = ['start', 'stop', 'restart'];

/** Start, stop, restart (and update when one is waiting); shared by the apps list and the app view. */
export function StackActions({ stack, busy, onAction }: { stack: StackT; busy: boolean; onAction: (name: string, action: StackAction) => void }) {
  const { name } = stack;
  return (
    <fieldset class="stack-actions">
      <legend class="sr-only">{t('apps.actions_label', { name })}</legend>
      {(stack.update === 'update' ? [...ACTIONS, 'update' as const] : ACTIONS).map((action) => (
        <button
          key={action}
          type="button"
          class="btn btn-small"
          aria-label={t(action === 'update' ? 'apps.update_now_label' : `apps.${action}_label`, { name })}
          aria-disabled={busy}
          onClick={() => !busy && onAction(name, action)}
        >
          {t(action === 'update' ? 'apps.update_now' : `apps.${action}`)}
        </button>
      ))}
    </fieldset>
  );
}

/** Progress and outcome of the last action; the live region exists always so changes are announced. */
export function JobLine({ name, tracked, onDismiss }: { name: string; tracked: TrackedJob | undefined; onDismiss: (n: string) => void }) {
  const dismiss = () => onDismiss(name);
  if (tracked && tracked.error !== null) {
    return (
      <div class="stack-job">
        <p role="status" class="job-line" />
        <ErrorMessage error={tracked.error} onDismiss={dismiss} />
      </div>
    );
  }
  const job = tracked?.job ?? null;
  const failed = job?.state === 'failed' || job?.state === 'interrupted';
  let text = '';
  if (tracked && !failed) {
    const done = job?.state === 'succeeded';
    text = t(done ? `job.succeeded.${tracked.action}` : `job.running.${tracked.action}`, { name });
  }
  return (
    <div class="stack-job">
      <p role="status" class="job-line">
        {isBusy(tracked) && <span class="spinner" aria-hidden="true" />}
        {text}
      </p>
      {failed && (
        <AlertBox onDismiss={dismiss}>
          <p>{job?.state === 'failed' ? t('job.failed', { error: job.error ?? '' }) : t('job.interrupted')}</p>
        </AlertBox>
      )}
    </div>
  );
}

/** The app's last job failed or was cut off: why, and the way on (try again = start, which creates missing containers; or remove). */
export function FailureLine({ stack, canOperate, onRetry, onRemove }: { stack: StackT; canOperate: boolean; onRetry: () => void; onRemove: () => void }) {
  const f = stack.failure;
  if (!f) return null;
  return (
    <div class="stack-failure" role="alert">
      <p>{f.state === 'failed' ? t('apps.failure.failed', { kind: f.kind, message: f.message }) : t('apps.failure.interrupted', { kind: f.kind })}</p>
      <p>
        <a href={jobsPath({ app: stack.name, job: f.job })} onClick={onLinkClick}>
          {t('jobs.failure_log')}
        </a>
      </p>
      {canOperate && (
        <p class="delete-app-buttons">
          <button type="button" class="btn btn-small btn-primary" aria-label={t('apps.failure.retry_label', { name: stack.name })} onClick={onRetry}>
            {t('apps.failure.retry')}
          </button>
          <button type="button" class="btn btn-small btn-danger" onClick={onRemove}>
            {t('apps.failure.remove')}
          </button>
        </p>
      )}
    </div>
  );
}
