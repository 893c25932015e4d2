import { useId } from 'preact/hooks';
import { ErrorMessage } from '../../components/error-message.tsx';
import { JobProgress } from '../../components/job-progress.tsx';
import { PanelButton, useRowPanel } from '../../components/row-panel.tsx';
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

type Mode = 'edit' | 'delete';

/** One template repo: where it comes from, its cache status, and sync, edit and delete as the role allows. */
export function RepoRow({ repo, rights, kadeVersion, job, onJob, onSaved, onDeleted }: Props) {
  // An opened panel takes the focus (first field, or the safe choice of the question); a closed one gives it back.
  const { mode, setMode, panel, toggle: open } = useRowPanel<Mode>('input, .repo-cancel');
  const heading = useId();
  const running = job !== undefined && (job.state === 'queued' || job.state === 'running');
  const toggle = (m: Mode, e: { currentTarget: HTMLButtonElement }) => {
    action.reset();
    open(m, e);
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
  const remove = () =>
    action.run(async () => {
      await deleteRepo(repo.id);
      onDeleted(repo);
    });

  return (
    <li class="repo card" aria-labelledby={heading} aria-busy={busy}>
      <RepoHead
        repo={repo}
        rights={rights}
        heading={heading}
        running={running}
        mode={mode}
        onSync={() => void action.run(async () => onJob(repo.id, await syncRepo(repo.id)))}
        onToggle={toggle}
      />
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
            <DeleteQuestion name={repo.name} busy={busy} onYes={() => void remove()} onNo={() => setMode('idle')} />
          )}
        </div>
      )}
      <ErrorMessage error={error} onDismiss={action.reset} />
      {job && <RepoJob repo={repo} job={job} running={running} onJob={onJob} />}
    </li>
  );
}

function DeleteQuestion({ name, busy, onYes, onNo }: { name: string; busy: boolean; onYes: () => void; onNo: () => void }) {
  return (
    <fieldset class="repo-confirm">
      <legend>{t('repos.delete_confirm', { name })}</legend>
      <div class="repo-form-buttons">
        <button type="button" class="btn btn-small repo-delete-yes" onClick={onYes}>
          {busy ? t('repos.busy') : t('repos.delete_yes')}
        </button>
        <button type="button" class="btn btn-small repo-cancel" onClick={onNo}>
          {t('repos.cancel')}
        </button>
      </div>
    </fieldset>
  );
}

/** The repo's newest sync job with its log, hidden on request once it ended. */
function RepoJob({ repo, job, running, onJob }: { repo: RepoT; job: JobT; running: boolean; onJob: Props['onJob'] }) {
  return (
    <div class="repo-job">
      <JobProgress key={job.id} job={job} label={t('repos.job_label', { name: repo.name })} onEnd={(j) => onJob(repo.id, j)} />
      {!running && (
        <button type="button" class="btn btn-small btn-quiet" onClick={() => onJob(repo.id, null)}>
          {t('repos.hide_log')}
        </button>
      )}
    </div>
  );
}

/** The repo's name, id and token badge, with sync, edit and delete as the role allows. */
function RepoHead(p: {
  repo: RepoT;
  rights: RepoRights;
  heading: string;
  running: boolean;
  mode: Mode | 'idle';
  onSync: () => void;
  onToggle: (m: Mode, e: { currentTarget: HTMLButtonElement }) => void;
}) {
  const { repo, rights, heading, running, mode, onSync, onToggle } = p;
  return (
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
              onClick={() => !running && onSync()}
            >
              {t('repos.sync')}
            </button>
          )}
          {rights.manage && (
            <>
              <PanelButton open={mode === 'edit'} label={t('repos.edit_label', { name: repo.name })} onClick={(e) => onToggle('edit', e)}>
                {t('repos.edit')}
              </PanelButton>
              <PanelButton
                class="repo-delete"
                open={mode === 'delete'}
                label={t('repos.delete_label', { name: repo.name })}
                onClick={(e) => onToggle('delete', e)}
              >
                {t('repos.delete')}
              </PanelButton>
            </>
          )}
        </div>
      )}
    </div>
  );
}
