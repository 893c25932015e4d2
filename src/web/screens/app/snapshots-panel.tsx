import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorMessage } from '../../components/error-message.tsx';
import { useAction } from '../../components/use-action.ts';
import { getLang, isMessageKey, t } from '../../i18n.ts';
import { listSnapshots, type RestoredT, restoreSnapshot, type SnapshotT } from './app-api.ts';

const when = (iso: string) => new Date(iso).toLocaleString(getLang() === 'nl' ? 'nl-NL' : 'en-GB', { dateStyle: 'medium', timeStyle: 'medium' });

function reasonText(reason: string): string {
  const key = `appview.snap.reason.${reason}`;
  return isMessageKey(key) ? t(key) : reason;
}

interface Props {
  name: string;
  canRestore: boolean;
  /** Changes after every save elsewhere on the page, so the new snapshot shows up. */
  refresh: number | string;
  onRestored: (r: RestoredT) => void;
}

/** The app's snapshots, read again whenever `refresh` changes. */
function useSnapshots(name: string, refresh: number | string): { snaps: SnapshotT[] | null; error: unknown } {
  const [snaps, setSnaps] = useState<SnapshotT[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let alive = true;
    listSnapshots(name).then(
      (list) => {
        if (!alive) return;
        setSnaps(list);
        setError(null);
      },
      (e: unknown) => alive && setError(e),
    );
    return () => {
      alive = false;
    };
  }, [name, refresh]);
  return { snaps, error };
}

/** The copies Kade kept before each change of the files, newest first; operators and admins can go back to one. */
export function SnapshotsPanel({ name, canRestore, refresh, onRestored }: Props) {
  const { snaps, error } = useSnapshots(name, refresh);
  const [asking, setAsking] = useState<string | null>(null);
  const [done, setDone] = useState<RestoredT | null>(null);
  const back = useAction(async (id: string) => {
    setDone(null);
    const r = await restoreSnapshot(name, id);
    setDone(r);
    setAsking(null);
    onRestored(r);
  });

  return (
    <section class="card appview-card" aria-labelledby="appview-snaps">
      <h2 id="appview-snaps">{t('appview.snap.title')}</h2>
      <p class="muted small">{t('appview.snap.intro')}</p>
      <ErrorMessage error={error} />
      <p role="status" class={done ? 'appview-ok' : 'sr-only'}>
        {done ? t('appview.snap.restored', { restored: done.restored, snapshot: done.snapshot }) : ''}
      </p>
      <ErrorMessage error={back.error} onDismiss={back.reset} />
      {snaps === null && !error && (
        <p class="muted" role="status">
          {t('appview.snap.loading')}
        </p>
      )}
      {snaps?.length === 0 && <p class="appview-empty">{t('appview.snap.none')}</p>}
      {snaps && snaps.length > 0 && (
        <ul class="appview-snaps">
          {snaps.map((s) => (
            <SnapshotItem
              key={s.id}
              snap={s}
              canRestore={canRestore}
              asking={asking === s.id}
              busy={back.busy}
              onAsk={(yes) => setAsking(yes ? s.id : null)}
              onRestore={() => void back.run(s.id)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

interface ItemProps {
  snap: SnapshotT;
  canRestore: boolean;
  /** The question "restore this one?" is open. */
  asking: boolean;
  busy: boolean;
  onAsk: (open: boolean) => void;
  onRestore: () => void;
}

/** One snapshot: when and why it was taken, and the restore with its question. */
function SnapshotItem({ snap: s, canRestore, asking, busy, onAsk, onRestore }: ItemProps) {
  const cancel = useRef<HTMLButtonElement>(null);
  // The question takes the focus on its safe answer, so Enter never restores by accident.
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);
  return (
    <li class="appview-snap" data-id={s.id}>
      <div class="appview-snap-main">
        <p>
          <strong>{when(s.created_at)}</strong> · {reasonText(s.reason)}
        </p>
        <p class="muted small">
          {t('appview.snap.files', { files: s.files.join(', ') })} · <span class="appview-mono">{s.id}</span>
        </p>
      </div>
      {canRestore && (
        <button
          type="button"
          class="btn btn-small"
          aria-expanded={asking}
          aria-label={t('appview.snap.restore_label', { time: when(s.created_at) })}
          onClick={() => onAsk(!asking)}
        >
          {t('appview.snap.restore')}
        </button>
      )}
      {asking && (
        <div class="appview-confirm">
          <p>{t('appview.snap.confirm', { time: when(s.created_at) })}</p>
          <p class="appview-confirm-buttons">
            <button type="button" class="btn btn-small btn-primary" aria-disabled={busy} onClick={onRestore}>
              {busy ? t('appview.snap.restoring') : t('appview.snap.restore_yes')}
            </button>
            <button type="button" class="btn btn-small" ref={cancel} onClick={() => onAsk(false)}>
              {t('appview.snap.cancel')}
            </button>
          </p>
        </div>
      )}
    </li>
  );
}
