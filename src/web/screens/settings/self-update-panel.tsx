import { useEffect, useState } from 'preact/hooks';
import type { JobT } from '../../../shared/api.ts';
import type { SelfUpdateReason, SelfUpdateRunT, SelfUpdateStatusT } from '../../../shared/self-update.ts';
import { Confirm } from '../../components/confirm.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatDateTime } from '../../components/format-date-time.ts';
import { JobProgress } from '../../components/job-progress.tsx';
import { type MessageKey, t } from '../../i18n.ts';
import { getHealth, getSelfUpdate, startSelfRollback, startSelfUpdate } from './settings-api.ts';

const REASON_KEYS: Record<SelfUpdateReason, MessageKey> = {
  no_engine_socket: 'selfupdate.reason.no_engine_socket',
  not_in_container: 'selfupdate.reason.not_in_container',
  not_registry_image: 'selfupdate.reason.not_registry_image',
  no_working_dir: 'selfupdate.reason.no_working_dir',
};
/** The helper's last result in words. */
function lastText(r: SelfUpdateRunT): string {
  const p = { from: r.from, to: r.to };
  switch (r.state) {
    case 'running':
      return t('selfupdate.last.running', p);
    case 'done':
      return t('selfupdate.last.done', p);
    case 'rolled_back':
      return t('selfupdate.last.rolled_back', p);
    case 'failed':
      return t('selfupdate.last.failed', p);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * After the job handed over to the helper: Kade goes away and comes back (on the new version, or on the old one
 * when the helper rolled back). Waits until the helper's result is in, then answers the fresh status.
 */
async function waitForHelper(since: string): Promise<SelfUpdateStatusT> {
  for (let i = 0; i < 600; i++) {
    await sleep(2000);
    const up = await getHealth().catch(() => null);
    if (!up) continue;
    const s = await getSelfUpdate().catch(() => null);
    if (s?.last && s.last.at >= since && s.last.state !== 'running') return s;
  }
  return getSelfUpdate();
}

type Action = 'update' | 'rollback';

/** The panel's state: the status, the update or rollback asked for and its job, then the wait for the helper's result. */
function useSelfUpdate(channel: string) {
  const [status, setStatus] = useState<SelfUpdateStatusT | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [checking, setChecking] = useState(false);
  const [asking, setAsking] = useState<Action | null>(null);
  const [job, setJob] = useState<{ job: JobT; action: Action; since: string } | null>(null);
  // 'job': pulling and handing over; 'restarting': the helper recreates Kade, the screen waits for its result.
  const [phase, setPhase] = useState<'idle' | 'job' | 'restarting'>('idle');

  const load = (force: boolean) => {
    setChecking(true);
    getSelfUpdate(force)
      .then((s) => {
        setStatus(s);
        setError(null);
      }, setError)
      .finally(() => setChecking(false));
  };
  // The channel is saved with the settings form: a saved change asks again.
  useEffect(() => load(false), [channel]);

  const start = async (action: Action) => {
    setAsking(null);
    setError(null);
    try {
      const since = new Date().toISOString();
      const r = await (action === 'update' ? startSelfUpdate() : startSelfRollback());
      setJob({ job: r.job, action, since });
      setPhase('job');
    } catch (e) {
      setError(e);
    }
  };
  const ended = (j: JobT) => {
    if (j.state !== 'succeeded' || !job) {
      setPhase('idle');
      return;
    }
    setPhase('restarting');
    waitForHelper(job.since)
      .then(setStatus, setError)
      .finally(() => setPhase('idle'));
  };
  return { status, error, setError, checking, asking, setAsking, job, phase, busy: phase !== 'idle', load, start, ended };
}

/** "Update Kade": the running and newest version, why updating is impossible, the update and rollback with their progress. */
export function SelfUpdatePanel({ channel }: { channel: string }) {
  const u = useSelfUpdate(channel);
  const { status: s, error, asking, job } = u;
  return (
    <section class="card settings-section self-update" aria-labelledby="settings-self-update">
      <h2 id="settings-self-update">{t('selfupdate.title')}</h2>
      <p class="muted section-intro">{t('selfupdate.intro')}</p>
      {!s && !error && (
        <p class="muted" role="status">
          {t('selfupdate.loading')}
        </p>
      )}
      {s && <Facts s={s} />}
      {s && !s.possible && s.reason_code && (
        <p class="self-update-reason" id="self-update-reason">
          {t(REASON_KEYS[s.reason_code])}
        </p>
      )}
      {s?.check_error && <p class="self-update-reason">{t('selfupdate.check_error', { error: s.check_error })}</p>}
      {s?.last && (
        <p class={`self-update-last self-update-${s.last.state}`} role="status">
          {lastText(s.last)} <span class="muted">({formatDateTime(s.last.at)})</span>
        </p>
      )}
      {s && !asking && <Buttons s={s} u={u} />}
      {asking && s && (
        <Confirm
          title={
            asking === 'update' ? t('selfupdate.confirm_update', { version: s.latest ?? '' }) : t('selfupdate.confirm_rollback', { version: s.previous ?? '' })
          }
          yes={asking === 'update' ? t('selfupdate.update') : t('selfupdate.rollback')}
          onYes={() => void u.start(asking)}
          onNo={() => u.setAsking(null)}
        >
          <p>{t('selfupdate.confirm_body')}</p>
        </Confirm>
      )}
      <ErrorMessage error={error} onDismiss={() => u.setError(null)} />
      {job && (
        <JobProgress
          key={job.job.id}
          job={job.job}
          label={job.action === 'update' ? t('selfupdate.running_update') : t('selfupdate.running_rollback')}
          onEnd={u.ended}
        />
      )}
      {u.phase === 'restarting' && (
        <p class="muted" role="status">
          <span class="spinner" aria-hidden="true" /> {t('selfupdate.restarting')}
        </p>
      )}
    </section>
  );
}

/** The running and the newest version, when it was asked, and the image Kade runs. */
function Facts({ s }: { s: SelfUpdateStatusT }) {
  return (
    <dl class="self-update-facts">
      <dt>{t('selfupdate.current')}</dt>
      <dd>
        <code>{s.current}</code>
      </dd>
      <dt>{t('selfupdate.latest', { channel: t(s.channel === 'beta' ? 'settings.channel.beta' : 'settings.channel.stable') })}</dt>
      <dd>
        {s.latest ? <code>{s.latest}</code> : '–'}
        {s.possible && !s.check_error && <span class="muted"> · {s.available ? t('selfupdate.available') : t('selfupdate.up_to_date')}</span>}
      </dd>
      {s.checked_at && (
        <>
          <dt>{t('selfupdate.checked_at')}</dt>
          <dd>{formatDateTime(s.checked_at)}</dd>
        </>
      )}
      {s.image && (
        <>
          <dt>{t('selfupdate.image')}</dt>
          <dd>
            <code>{s.image}</code>
          </dd>
        </>
      )}
    </dl>
  );
}

/** Update (said impossible, with the reason, when it is), roll back, and ask the registry again. */
function Buttons({ s, u }: { s: SelfUpdateStatusT; u: ReturnType<typeof useSelfUpdate> }) {
  const { busy, checking } = u;
  return (
    <p class="self-update-buttons">
      {(s.available || !s.possible) && (
        <button
          type="button"
          class="btn btn-primary"
          aria-disabled={!s.possible || busy}
          aria-describedby={!s.possible ? 'self-update-reason' : undefined}
          onClick={() => s.possible && !busy && u.setAsking('update')}
        >
          {s.latest && s.possible ? t('selfupdate.update_to', { version: s.latest }) : t('selfupdate.update')}
        </button>
      )}
      {s.possible && s.previous && (
        <button type="button" class="btn" aria-disabled={busy} onClick={() => !busy && u.setAsking('rollback')}>
          {t('selfupdate.rollback_to', { version: s.previous })}
        </button>
      )}
      {s.possible && (
        <button type="button" class="btn" aria-disabled={checking || busy} onClick={() => !checking && !busy && u.load(true)}>
          {checking ? t('selfupdate.checking') : t('selfupdate.check_now')}
        </button>
      )}
    </p>
  );
}
