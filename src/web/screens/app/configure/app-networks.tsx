import type { Ref } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { JobT } from '../../../../shared/api.ts';
import type { ConnectRequestT } from '../../../../shared/networks.ts';
import { AlertBox, ErrorMessage } from '../../../components/error-message.tsx';
import { JobProgress } from '../../../components/job-progress.tsx';
import { LoadState } from '../../../components/load-state.tsx';
import type { NetworkViewT } from '../../../components/networks-api.ts';
import { useNetworks } from '../../../components/use-networks.ts';
import { t } from '../../../i18n.ts';
import { onLinkClick } from '../../../router.ts';
import { connect, type StackConfigT } from './configure-api.ts';
import { type NetAction, NetworkCard } from './network-card.tsx';

type Run = { job: JobT; action: NetAction; ended: JobT | null };

interface Props {
  name: string;
  config: StackConfigT;
  /** The app's containers: an address one of them holds is its own. */
  own: readonly string[];
  /** A reconfigure runs: no network change may start meanwhile. */
  locked: boolean;
  isAdmin: boolean;
  /** A network change succeeded: the tab reads the app's settings again. */
  onChanged: () => void;
}

function actionLabel(a: NetAction, name: string): string {
  switch (a.kind) {
    case 'join':
      return t('appnet.job_join', { name, network: a.network });
    case 'leave':
      return t('appnet.job_leave', { name, network: a.network });
    case 'address':
      return a.ip
        ? t('appnet.job_ip', { service: a.service, network: a.network, ip: a.ip })
        : t('appnet.job_ip_auto', { service: a.service, network: a.network });
  }
}

/** The Network section of the Configure tab: per shared network of Kade's, whether the app is on it; join, leave, an own address. */
export function AppNetworks({ name, config, own, locked, isAdmin, onChanged }: Props) {
  const id = useId();
  const { list, error, reload } = useNetworks();
  const [run, setRun] = useState<Run | null>(null);
  const [refused, setRefused] = useState<unknown>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const running = run !== null && run.ended === null;
  const kade = list?.networks.filter((n) => n.kind !== 'engine') ?? null;

  useEffect(() => {
    if (run && !run.ended) heading.current?.focus();
  }, [run?.job.id]);

  const start = async (action: NetAction, body: ConnectRequestT): Promise<boolean> => {
    if (running || locked) return false;
    setRefused(null);
    try {
      const job = await connect(name, body);
      setRun({ job, action, ended: null });
      return true;
    } catch (err) {
      setRefused(err);
      return false;
    }
  };
  const onEnd = (ended: JobT) => {
    setRun((r) => (r ? { ...r, ended } : r));
    // Members, addresses and a network created by the first join: read again either way.
    reload();
    if (ended.state === 'succeeded') onChanged();
  };

  return (
    <section class="card configure-netsection" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{t('appnet.heading')}</h2>
      <p class="muted">{t('appnet.intro')}</p>
      <LoadState error={error} loading={kade === null} text={t('appnet.loading')} />
      {kade !== null && kade.length === 0 && (
        <p class="muted">
          {t('appnet.none')}{' '}
          {isAdmin && (
            <a href="/networks" onClick={onLinkClick}>
              {t('appnet.to_networks')}
            </a>
          )}
        </p>
      )}
      {run && <RunBox run={run} name={name} heading={heading} onEnd={onEnd} onHide={() => setRun(null)} />}
      <ErrorMessage error={refused} onDismiss={() => setRefused(null)} />
      {kade !== null && kade.length > 0 && (
        <ul class="appnet-list">
          {kade.map((n: NetworkViewT) => (
            <NetworkCard key={n.name} network={n} config={config} own={own} disabled={running || locked} onAction={start} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** The network change as it runs, and how it ended: done, or failed with the old state put back. */
function RunBox({
  run,
  name,
  heading,
  onEnd,
  onHide,
}: {
  run: Run;
  name: string;
  heading: Ref<HTMLHeadingElement>;
  onEnd: (j: JobT) => void;
  onHide: () => void;
}) {
  return (
    <div class="appnet-run">
      <h3 ref={heading} tabIndex={-1}>
        {actionLabel(run.action, name)}
      </h3>
      <JobProgress key={run.job.id} job={run.job} label={t('appnet.job_label', { name })} onEnd={onEnd} />
      {run.ended?.state === 'succeeded' && (
        <p class="configure-done" role="status">
          <span aria-hidden="true">✓ </span>
          {t('appnet.done', { name })}
        </p>
      )}
      {run.ended && run.ended.state !== 'succeeded' && (
        <AlertBox>
          <p>{run.ended.error ? t('appnet.failed_why', { error: run.ended.error }) : t('appnet.failed')}</p>
          <p>{t('appnet.restored')}</p>
        </AlertBox>
      )}
      {run.ended && (
        <button type="button" class="btn btn-small btn-quiet" onClick={onHide}>
          {t('appnet.hide')}
        </button>
      )}
    </div>
  );
}
