import { useEffect, useState } from 'preact/hooks';
import type { JobT, StackT, StackUpdateCheckT } from '../../shared/api.ts';
import { t } from '../i18n.ts';
import { ErrorMessage } from './error-message.tsx';
import { formatAge } from './format-age.ts';
import { formatDateTime } from './format-date-time.ts';
import { JobProgress } from './job-progress.tsx';
import { checkAllUpdates, checkStackUpdate } from './updates-api.ts';

/** A newer (or other) version of the app's template in the store: saving the Configure form renders it. */
function TemplateUpdate({ version }: { version: string }) {
  return (
    <span class="badge badge-update badge-template" title={t('apps.template_update_hint', { version })}>
      {t('apps.template_update', { version })}
    </span>
  );
}

/** The last known update state with its age: a badge when an update waits, else how the last check came out. */
export function UpdateState({ stack }: { stack: StackT }) {
  const at = stack.update_checked_at;
  const template = stack.template_update !== null && <TemplateUpdate version={stack.template_update} />;
  if (at === null)
    return (
      <>
        {template}
        <span class="update-age">{t('updates.never_checked')}</span>
      </>
    );
  const age = formatAge(at);
  return (
    <>
      {template}
      {stack.update === 'update' && <span class="badge badge-update">{t('apps.update')}</span>}
      <span class="update-age" title={formatDateTime(at)}>
        {t(`updates.checked.${stack.update}`, { age })}
      </span>
    </>
  );
}

/** What a user's check found, in a sentence: the first image that could not be compared says why. */
function outcomeText(c: StackUpdateCheckT): string {
  if (c.update === 'update' || c.update === 'current') return t(`updates.outcome.${c.update}`);
  const open = c.images.find((i) => i.state === 'unknown') ?? null;
  if (!open) return t('updates.outcome.no_images');
  if (open.reason === 'registry') return t('updates.outcome.registry', { image: open.image, detail: open.detail ?? '' });
  if (open.reason === 'local_build' || open.reason === 'not_pulled' || open.reason === 'invalid_ref')
    return t(`updates.outcome.${open.reason}`, { image: open.image });
  return t('updates.outcome.unknown');
}

/**
 * "Check now" for one app: asks the registries at once and says what came out; `onChecked` reloads the app's state.
 * What came out is dropped when `since` changes (another job of the app started: an update makes it stale).
 */
export function CheckUpdateButton({ name, onChecked, since = '' }: { name: string; onChecked: () => void; since?: string }) {
  const [checking, setChecking] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setOutcome(null);
    setError(null);
  }, [since]);
  const check = async () => {
    if (checking) return;
    setChecking(true);
    setOutcome(null);
    setError(null);
    try {
      setOutcome(outcomeText(await checkStackUpdate(name)));
      onChecked();
    } catch (err) {
      setError(err);
    } finally {
      setChecking(false);
    }
  };
  return (
    <span class="update-check">
      <button
        type="button"
        class="btn btn-small btn-quiet"
        aria-label={t('updates.check_label', { name })}
        aria-disabled={checking}
        onClick={() => void check()}
      >
        {checking && <span class="spinner" aria-hidden="true" />}
        {checking ? t('updates.checking') : t('updates.check')}
      </button>
      <span role="status" class="update-outcome">
        {outcome}
      </span>
      <ErrorMessage error={error} onDismiss={() => setError(null)} />
    </span>
  );
}

/** "Check all for updates" on the apps screen: one job over every app; the button and the panel below the title share it. */
export function useCheckAll(onEnd: () => void) {
  const [job, setJob] = useState<JobT | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [ended, setEnded] = useState(false);
  const running = job !== null && !ended;
  const start = async () => {
    if (running) return;
    setError(null);
    setEnded(false);
    try {
      setJob(await checkAllUpdates());
    } catch (err) {
      setError(err);
    }
  };
  const end = () => {
    setEnded(true);
    onEnd();
  };
  return { job, error, ended, running, start, end, close: () => setJob(null), dismiss: () => setError(null) };
}

type CheckAll = ReturnType<typeof useCheckAll>;

export function CheckAllButton({ state }: { state: CheckAll }) {
  return (
    <button type="button" class="btn btn-small" aria-disabled={state.running} onClick={() => void state.start()}>
      {t('updates.check_all')}
    </button>
  );
}

/** The check-all job's progress and log, and a way to close it once it ended. */
export function CheckAllPanel({ state }: { state: CheckAll }) {
  const { job, error } = state;
  if (!job && error === null) return null;
  return (
    <div class="update-all">
      <ErrorMessage error={error} onDismiss={state.dismiss} />
      {job && <JobProgress key={job.id} job={job} label={t('updates.check_all_label')} onEnd={state.end} />}
      {job && state.ended && (
        <button type="button" class="btn btn-small btn-quiet" onClick={state.close}>
          {t('updates.check_all_close')}
        </button>
      )}
    </div>
  );
}
