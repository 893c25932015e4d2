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

/** The copies Kade kept before each change of the files, newest first; operators and admins can go back to one. */
export function SnapshotsPanel({ name, canRestore, refresh, onRestored }: Props) {
  const [snaps, setSnaps] = useState<SnapshotT[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [asking, setAsking] = useState<string | null>(null);
  const [done, setDone] = useState<RestoredT | null>(null);
  const back = useAction(async (id: string) => {
    setDone(null);
    const r = await restoreSnapshot(name, id);
    setDone(r);
    setAsking(null);
    onRestored(r);
  });
  const { busy } = back;
  const cancel = useRef<HTMLButtonElement>(null);

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

  // The question takes the focus on its safe answer, so Enter never restores by accident.
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);

  const restore = (id: string) => back.run(id);

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
            <li key={s.id} class="appview-snap" data-id={s.id}>
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
                  aria-expanded={asking === s.id}
                  aria-label={t('appview.snap.restore_label', { time: when(s.created_at) })}
                  onClick={() => setAsking(asking === s.id ? null : s.id)}
                >
                  {t('appview.snap.restore')}
                </button>
              )}
              {asking === s.id && (
                <div class="appview-confirm">
                  <p>{t('appview.snap.confirm', { time: when(s.created_at) })}</p>
                  <p class="appview-confirm-buttons">
                    <button type="button" class="btn btn-small btn-primary" aria-disabled={busy} onClick={() => void restore(s.id)}>
                      {busy ? t('appview.snap.restoring') : t('appview.snap.restore_yes')}
                    </button>
                    <button type="button" class="btn btn-small" ref={cancel} onClick={() => setAsking(null)}>
                      {t('appview.snap.cancel')}
                    </button>
                  </p>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
