import { useState } from 'preact/hooks';
import type { JobT } from '../../shared/api.ts';
import { t } from '../i18n.ts';
import { createBackup } from './backups-api.ts';
import { ErrorMessage } from './error-message.tsx';
import { JobProgress } from './job-progress.tsx';
import { useAction } from './use-action.ts';
import './backups.css';

/** A manual backup of one app at a time: the refusal (disk_full names the sizes, slot_busy the app) or the job. */
export function useBackupNow(onEnd: (job: JobT) => void) {
  const [run, setRun] = useState<{ stack: string; job: JobT; done: boolean } | null>(null);
  const send = useAction(async (stack: string) => setRun({ stack, job: await createBackup(stack), done: false }));
  const running = send.busy || (run !== null && !run.done);
  const start = async (stack: string) => {
    if (!running) await send.run(stack);
  };
  const ended = (job: JobT) => {
    setRun((r) => (r && r.job.id === job.id ? { ...r, done: true } : r));
    onEnd(job);
  };
  return { run, error: send.error, running, start, ended, dismiss: send.reset };
}

type BackupNowState = ReturnType<typeof useBackupNow>;

/** Where a manual backup shows: its refusal, or its progress bar and log. */
export function BackupNowProgress({ state }: { state: BackupNowState }) {
  const { run, error } = state;
  return (
    <>
      <ErrorMessage error={error} onDismiss={state.dismiss} />
      {run && <JobProgress key={run.job.id} job={run.job} label={t('backups.now_running', { name: run.stack })} onEnd={state.ended} />}
    </>
  );
}

/** "Back up now" for one app, as the app view offers it. */
export function BackupNow({ stack, onEnd }: { stack: string; onEnd: (job: JobT) => void }) {
  const state = useBackupNow(onEnd);
  return (
    <div class="backup-now">
      <p>
        <button type="button" class="btn btn-primary" aria-disabled={state.running} onClick={() => void state.start(stack)}>
          {state.running ? t('backups.now_busy') : t('backups.now')}
        </button>
      </p>
      <BackupNowProgress state={state} />
    </div>
  );
}
