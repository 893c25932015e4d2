import { useState } from 'preact/hooks';
import type { JobT } from '../../shared/api.ts';
import { ApiError, request } from '../api.ts';
import { t } from '../i18n.ts';
import { Confirm } from './confirm.tsx';
import { AlertBox, ErrorMessage } from './error-message.tsx';
import { JobProgress } from './job-progress.tsx';
import { useAction } from './use-action.ts';
import './engine-restart.css';

const restartEngine = (): Promise<{ job: JobT }> => request<{ job: JobT }>('POST', '/api/engine/restart');

/** Why the host cannot restart its engine from Kade, in the reader's language; null for any other error. */
export function refusalText(err: unknown): string | null {
  if (!(err instanceof ApiError) || err.code !== 'conflict') return null;
  const p = err.params;
  if (p.reason === 'not_systemd') return t('engine_restart.not_systemd', { pid1: String(p.pid1 ?? '') });
  if (p.reason === 'no_unit') return t('engine_restart.no_unit', { unit: String(p.unit ?? 'docker.service') });
  if (p.reason === 'image_missing') return t('engine_restart.image_missing', { image: String(p.image ?? '') });
  return null;
}

/**
 * "Restart the container engine" (admins): asks first, then shows the job's progress, or why this host's engine
 * cannot be restarted from Kade. Placed where the engine's state is shown (the Diagnostics screen).
 */
export function EngineRestart() {
  const [asking, setAsking] = useState(false);
  const [job, setJob] = useState<JobT | null>(null);
  const send = useAction(async () => setJob((await restartEngine()).job));
  const { error } = send;
  const running = send.busy || (job !== null && (job.state === 'running' || job.state === 'queued'));
  const start = async () => {
    setAsking(false);
    setJob(null);
    await send.run();
  };
  const refusal = refusalText(error);
  return (
    <section class="card engine-restart" aria-labelledby="engine-restart-title">
      <h2 id="engine-restart-title">{t('engine_restart.title')}</h2>
      <p class="muted">{t('engine_restart.intro')}</p>
      {asking ? (
        <Confirm
          title={t('engine_restart.confirm_title')}
          yes={t('engine_restart.confirm_yes')}
          danger
          onYes={() => void start()}
          onNo={() => setAsking(false)}
        >
          <p>{t('engine_restart.confirm_text')}</p>
        </Confirm>
      ) : (
        <p>
          <button type="button" class="btn" aria-disabled={running} onClick={() => !running && setAsking(true)}>
            {running ? t('engine_restart.busy') : t('engine_restart.button')}
          </button>
        </p>
      )}
      {refusal !== null ? (
        <AlertBox onDismiss={send.reset}>
          <p>{refusal}</p>
        </AlertBox>
      ) : (
        <ErrorMessage error={error} onDismiss={send.reset} />
      )}
      {job && <JobProgress key={job.id} job={job} label={t('engine_restart.running')} onEnd={setJob} />}
    </section>
  );
}
