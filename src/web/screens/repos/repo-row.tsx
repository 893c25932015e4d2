import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ErrorMessage } from '../../components/error-message.tsx';
import { JobProgress } from '../../components/job-progress.tsx';
import { useAction } from '../../components/use-action.ts';
import { t } from '../../i18n.ts';
import { RepoForm } from './repo-form.tsx';
import { RepoImport, RepoSkipped } from './repo-skipped.tsx';
import { RepoDetails } from './repo-status.tsx';
import { deleteRepo, type JobT, type RepoT, syncRepo } from './repos-api.ts';

export interface RepoRights {
  /** Operators and admins may fetch a repo again. */
  sync: boolean;
  /** Only admins add, edit and delete. */
  manage: boolean;
}

interface Props {
  repo: RepoT;
  rights: RepoRights;
  kadeVersion: string | null;
  /** The newest sync job of this repo, shown until dismissed. */
  job: JobT | undefined;
  /** A job started, ended (the list is read again then) or was dismissed (null). */
  onJob: (id: string, job: JobT | null) => void;
  /** Called after the server accepted a change; never on a refusal. */
  onSaved: (repo: RepoT, job: JobT) => void;
  onDeleted: (repo: RepoT) => void;
}

type Mode = 'idle' | 'edit' | 'delete';

/** One template repo: where it comes from, its cache status, and sync, edit and delete as the role allows. */
export function RepoRow({ repo, rights, kadeVersion, job, onJob, onSaved, onDeleted }: Props) {
  const [mode, setMode] = useState<Mode>('idle');
  const heading = useId();
  const panel = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement | null>(null);
  const running = job !== undefined && (job.state === 'queued' || job.state === 'running');

  // An opened panel takes the focus (first field, or the safe choice of the question); a closed one gives it back.
  useEffect(() => {
    if (mode === 'idle') trigger.current?.focus();
    else panel.current?.querySelector<HTMLElement>('input, .repo-cancel')?.focus();
  }, [mode]);

  const toggle = (m: Mode, e: { currentTarget: HTMLButtonElement }) => {
    trigger.current = e.currentTarget;
    action.reset();
    setMode(mode === m ? 'idle' : m);
  };

  const action = useAction(async (work: () => Promise<void>) => {
    try {
      await work();
    } catch (err) {
      if (mode === 'delete') setMode('idle');
      throw err;
    }
  });
  const { busy, error } = action;
  const act = (work: () => Promise<void>) => action.run(work);
  const sync = () => act(async () => onJob(repo.id, await syncRepo(repo.id)));
  const remove = () =>
    act(async () => {
      await deleteRepo(repo.id);
      onDeleted(repo);
    });

  return (
    <li class="repo" aria-labelledby={heading} aria-busy={busy}>
      <div class="repo-head">
        <h2 id={heading}>
          {repo.name}
          <span class="repo-id">{repo.id}</span>
          {repo.has_token && <span class="badge repo-token">{t('repos.token_set')}</span>}
        </h2>
        {(rights.sync || rights.manage) && (
          <div class="repo-actions">
            {rights.sync && (
              <button
                type="button"
                class="btn btn-small"
                aria-label={t('repos.sync_label', { name: repo.name })}
                aria-disabled={running}
                onClick={() => !running && void sync()}
              >
                {t('repos.sync')}
              </button>
            )}
            {rights.manage && (
              <>
                <button
                  type="button"
                  class="btn btn-small"
                  aria-expanded={mode === 'edit'}
                  aria-label={t('repos.edit_label', { name: repo.name })}
                  onClick={(e) => toggle('edit', e)}
                >
                  {t('repos.edit')}
                </button>
                <button
                  type="button"
                  class="btn btn-small repo-delete"
                  aria-expanded={mode === 'delete'}
                  aria-label={t('repos.delete_label', { name: repo.name })}
                  onClick={(e) => toggle('delete', e)}
                >
                  {t('repos.delete')}
                </button>
              </>
            )}
          </div>
        )}
      </div>
      <RepoDetails repo={repo} kadeVersion={kadeVersion} />
      <RepoImport repo={repo} />
      <RepoSkipped repo={repo} />
      {repo.status.error && (
        <p class="repo-error">
          <strong>{t('repos.last_error')}</strong> {repo.status.error}
        </p>
      )}
      {mode !== 'idle' && (
        <div class="repo-panel" ref={panel}>
          {mode === 'edit' ? (
            <RepoForm
              repo={repo}
              onCancel={() => setMode('idle')}
              onSaved={(r, j) => {
                setMode('idle');
                onSaved(r, j);
              }}
            />
          ) : (
            <fieldset class="repo-confirm">
              <legend>{t('repos.delete_confirm', { name: repo.name })}</legend>
              <div class="repo-form-buttons">
                <button type="button" class="btn btn-small repo-delete-yes" onClick={() => void remove()}>
                  {busy ? t('repos.busy') : t('repos.delete_yes')}
                </button>
                <button type="button" class="btn btn-small repo-cancel" onClick={() => setMode('idle')}>
                  {t('repos.cancel')}
                </button>
              </div>
            </fieldset>
          )}
        </div>
      )}
      <ErrorMessage error={error} onDismiss={action.reset} />
      {job && (
        <div class="repo-job">
          <JobProgress key={job.id} job={job} label={t('repos.job_label', { name: repo.name })} onEnd={(j) => onJob(repo.id, j)} />
          {!running && (
            <button type="button" class="btn btn-small btn-quiet" onClick={() => onJob(repo.id, null)}>
              {t('repos.hide_log')}
            </button>
          )}
        </div>
      )}
    </li>
  );
}
