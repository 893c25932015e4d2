import { useEffect, useState } from 'preact/hooks';
import type { JobT } from '../../../shared/api.ts';
import { joinPath, normalisePath } from '../../../shared/paths.ts';
import { EXAMPLES_SUBDIRECTORY, PROJECT_REPO_URL } from '../../../shared/project.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { JobProgress } from '../../components/job-progress.tsx';
import { SaveResult } from '../../components/save-result.tsx';
import { useAction } from '../../components/use-action.ts';
import { TextField } from '../../forms/field.tsx';
import { PathField } from '../../forms/path-field.tsx';
import { t } from '../../i18n.ts';
import { wizardGit, wizardPaths, wizardSync } from './wizard-api.ts';

function StepTitle({ text }: { text: string }) {
  return (
    <h2 id="wizard-step-title" tabIndex={-1}>
      {text}
    </h2>
  );
}

function Nav({ busy, next, onBack }: { busy?: boolean; next: string; onBack?: () => void }) {
  return (
    <div class="wizard-nav">
      {onBack && (
        <button type="button" class="btn" onClick={onBack}>
          {t('wizard.back')}
        </button>
      )}
      <button type="submit" class="btn btn-primary" aria-disabled={busy}>
        {next}
      </button>
    </div>
  );
}

export function PathsStep({ initial, onDone }: { initial: string; onDone: () => void }) {
  const [base, setBase] = useState(initial);
  const save = useAction(async () => {
    await wizardPaths(base.trim());
    onDone();
  });
  const b = normalisePath(base);
  const submit = (e: Event) => {
    e.preventDefault();
    void save.run();
  };
  return (
    <form onSubmit={submit} noValidate aria-busy={save.busy}>
      <StepTitle text={t('wizard.step.paths')} />
      <p>{t('wizard.paths_text')}</p>
      <PathField
        label={t('settings.base_dir')}
        name="BASE_DIR"
        value={base}
        onInput={(v) => {
          setBase(v);
          // A refusal speaks of the folder that was sent; the live check takes over once it changes.
          save.reset();
        }}
        invalid={save.error !== null}
      />
      {b.startsWith('/') && (
        <p class="muted small">
          {t('wizard.paths_derived', { library: joinPath(b, 'stacks'), data: joinPath(b, 'appdata'), backups: joinPath(b, 'backups') })}
        </p>
      )}
      <SaveResult state={save.busy ? { kind: 'saving' } : save.error ? { kind: 'refused', error: save.error } : { kind: 'idle' }} labelOf={(k) => k} />
      <Nav busy={save.busy} next={save.busy ? t('wizard.saving') : t('wizard.next')} />
    </form>
  );
}

export function RepoStep({ repos, onBack, onDone }: { repos: number; onBack: () => void; onDone: () => void }) {
  const [url, setUrl] = useState('');
  const [branch, setBranch] = useState('main');
  const [subdir, setSubdir] = useState('');
  const [token, setToken] = useState('');
  const add = useAction(async () => {
    await wizardGit({ url: url.trim(), branch: branch.trim() || 'main', subdirectory: subdir.trim(), ...(token ? { token } : {}) });
    onDone();
  });
  const { busy, error } = add;
  const submit = (e: Event) => {
    e.preventDefault();
    void add.run();
  };
  const bad = error !== null;
  const useExamples = () => {
    setUrl(PROJECT_REPO_URL);
    setBranch('main');
    setSubdir(EXAMPLES_SUBDIRECTORY);
    add.reset();
  };
  return (
    <form onSubmit={submit} noValidate aria-busy={busy}>
      <StepTitle text={t('wizard.step.repo')} />
      <p>{t('wizard.repo_text')}</p>
      <div class="notice wizard-examples">
        <p>{t('wizard.examples_text', { url: PROJECT_REPO_URL, folder: EXAMPLES_SUBDIRECTORY })}</p>
        <button type="button" class="btn btn-small" onClick={useExamples}>
          {t('wizard.examples_use')}
        </button>
        <p class="muted small">{t('wizard.examples_local')}</p>
      </div>
      {repos > 0 && (
        <div class="notice wizard-existing">
          <p>{t('wizard.repo_existing', { count: repos })}</p>
          <button type="button" class="btn btn-small" onClick={onDone}>
            {t('wizard.repo_skip')}
          </button>
        </div>
      )}
      <div class="settings-grid">
        <TextField
          label={t('wizard.repo_url')}
          name="url"
          value={url}
          onInput={setUrl}
          autocomplete="url"
          required
          hint={t('wizard.repo_url_hint')}
          invalid={bad}
          errorId="wizard-repo-error"
        />
        <TextField label={t('wizard.repo_branch')} name="branch" value={branch} onInput={setBranch} autocomplete="off" required />
        <TextField
          label={t('wizard.repo_subdir')}
          name="subdirectory"
          value={subdir}
          onInput={setSubdir}
          autocomplete="off"
          hint={t('wizard.repo_subdir_hint')}
        />
        <TextField
          label={t('wizard.repo_token')}
          name="token"
          type="password"
          value={token}
          onInput={setToken}
          autocomplete="new-password"
          hint={t('wizard.repo_token_hint')}
        />
      </div>
      <ErrorMessage error={error} id="wizard-repo-error" />
      <Nav busy={busy} next={busy ? t('wizard.saving') : t('wizard.next')} onBack={onBack} />
    </form>
  );
}

/** Starts the sync of every repo and shows each job until it ends; only a full success goes on. */
export function SyncStep({ onBack, onDone }: { onBack: () => void; onDone: () => void }) {
  const [round, setRound] = useState(0);
  const [jobs, setJobs] = useState<JobT[] | null>(null);
  const [ended, setEnded] = useState<Record<string, JobT>>({});
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setJobs(null);
    setEnded({});
    setError(null);
    wizardSync()
      .then((a) => setJobs(a.jobs))
      .catch(setError);
  }, [round]);
  const finished = jobs?.every((j) => ended[j.id]) ?? false;
  const ok = finished && (jobs ?? []).every((j) => ended[j.id]?.state === 'succeeded');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (ok) onDone();
      }}
      noValidate
    >
      <StepTitle text={t('wizard.step.sync')} />
      <p>{jobs?.length === 0 ? t('wizard.sync_none') : t('wizard.sync_text')}</p>
      <ErrorMessage error={error} />
      <div class="wizard-jobs">
        {jobs?.map((j, i) => (
          <JobProgress
            key={j.id}
            job={j}
            label={t('wizard.sync_job', { n: i + 1, total: jobs.length })}
            onEnd={(end) => setEnded((prev) => ({ ...prev, [end.id]: end }))}
          />
        ))}
      </div>
      {finished && !ok && (
        <div class="error" role="alert">
          <p>{t('wizard.sync_failed')}</p>
          <button type="button" class="btn btn-small wizard-retry" onClick={() => setRound((r) => r + 1)}>
            {t('wizard.sync_retry')}
          </button>
        </div>
      )}
      {ok && (
        <p class="notice notice-ok" role="status">
          {t('wizard.sync_ok')}
        </p>
      )}
      <Nav busy={!ok} next={t('wizard.next')} onBack={onBack} />
    </form>
  );
}

export function DoneStep({ onFinish }: { onFinish: () => Promise<void> }) {
  return (
    <div>
      <StepTitle text={t('wizard.done_title')} />
      <p>{t('wizard.done_text')}</p>
      <div class="wizard-nav">
        <button type="button" class="btn btn-primary" onClick={() => void onFinish()}>
          {t('wizard.finish')}
        </button>
      </div>
    </div>
  );
}
