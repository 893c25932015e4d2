import { useId, useState } from 'preact/hooks';
import type { JobT } from '../../shared/api.ts';
import { getLang, isMessageKey, t } from '../i18n.ts';
import { Facts, Skipped, Verified } from './backup-facts.tsx';
import { formatWhen } from './backup-format.ts';
import { type BackupT, deleteBackup, downloadHref, restoreBackup, verifyBackup } from './backups-api.ts';
import { Confirm } from './confirm.tsx';
import { ErrorMessage } from './error-message.tsx';
import { JobProgress } from './job-progress.tsx';
import { OutsideConfirm } from './outside-confirm.tsx';
import { outsidePaths } from './outside-paths.ts';
import { useAction } from './use-action.ts';
import './backups.css';

const when = (iso: string) => formatWhen(iso, getLang());

function reasonText(reason: string): string {
  const key = `backups.reason.${reason}`;
  return isMessageKey(key) ? t(key) : reason;
}

interface ListProps {
  backups: BackupT[];
  /** Operators and admins verify, restore and delete; viewers read. */
  canOperate: boolean;
  /** Admins only: an archive holds the app's `.env` with its secrets in clear. */
  canDownload: boolean;
  /** After anything that changes what the list shows: a verification, a restore. */
  onChanged: () => void;
  /** A backup was deleted; the caller says so where it stays on screen (the list may be gone with it). */
  onDeleted: (b: BackupT) => void;
  /** A restore ended (either way): the app's own view reads its state again. */
  onRestored?: ((job: JobT) => void) | undefined;
  label: string;
}

/** Backups, newest first, each with its facts and actions. */
export function BackupList({ backups, canOperate, canDownload, onChanged, onDeleted, onRestored, label }: ListProps) {
  return (
    <>
      {/* Where an operator looks for the download: why there is none for them. */}
      {canOperate && !canDownload && backups.length > 0 && (
        <p class="muted small backups-download-note" role="note">
          {t('backups.download_admins')}
        </p>
      )}
      <ul class="backups" aria-label={label}>
        {backups.map((b) => (
          <BackupItem
            key={b.id}
            backup={b}
            canOperate={canOperate}
            canDownload={canDownload}
            onChanged={onChanged}
            onRestored={onRestored}
            onDeleted={() => onDeleted(b)}
          />
        ))}
      </ul>
    </>
  );
}

/** The line that reports a deletion, announced to screen readers. */
export function DeletedNotice({ deleted }: { deleted: BackupT | null }) {
  return (
    <div role="status" class="backups-status">
      {deleted && <p class="notice">{t('backups.deleted', { name: deleted.stack, time: when(deleted.created_at) })}</p>}
    </div>
  );
}

type Running = { kind: 'verify' | 'restore'; job: JobT; ended: JobT | null };

interface ItemProps {
  backup: BackupT;
  canOperate: boolean;
  canDownload: boolean;
  onChanged: () => void;
  onRestored?: ((job: JobT) => void) | undefined;
  onDeleted: () => void;
}

type Asking = 'restore' | 'delete' | null;

/** One backup's actions and their state: the question open, the job running, the refusal. */
function useBackupItem(b: BackupT, { onChanged, onRestored, onDeleted }: Pick<ItemProps, 'onChanged' | 'onRestored' | 'onDeleted'>) {
  const [asking, setAsking] = useState<Asking>(null);
  const [run, setRun] = useState<Running | null>(null);
  const action = useAction((work: () => Promise<void>) => work());
  const working = action.busy || (run !== null && run.ended === null);

  const act = async (work: () => Promise<void>) => {
    if (!working) await action.run(work);
  };
  const start = (kind: Running['kind'], confirm?: string[]) =>
    act(async () => {
      const job = await (kind === 'verify' ? verifyBackup(b.id) : restoreBackup(b.id, confirm));
      setAsking(null);
      setRun({ kind, job, ended: null });
    });
  const remove = () =>
    act(async () => {
      await deleteBackup(b.id);
      setAsking(null);
      onDeleted();
    });
  const ended = (job: JobT) => {
    setRun((r) => (r && r.job.id === job.id ? { ...r, ended: job } : r));
    onChanged();
    if (run?.kind === 'restore') onRestored?.(job);
  };
  return { asking, setAsking, run, action, working, outside: outsidePaths(action.error), start, remove, ended };
}

function BackupItem({ backup: b, canOperate, canDownload, ...on }: ItemProps) {
  const heading = useId();
  const { asking, setAsking, run, action, working, outside, start, remove, ended } = useBackupItem(b, on);
  const { busy, error } = action;
  const time = when(b.created_at);
  const names = { name: b.stack, time };

  return (
    <li class="backup" aria-labelledby={heading} data-backup={b.id}>
      <div class="backup-head">
        <h3 id={heading}>{time}</h3>
        <Verified b={b} />
        <span class="badge backup-reason">{reasonText(b.reason)}</span>
      </div>
      <Facts b={b} />
      <Skipped b={b} />
      {canOperate && (
        <BackupActions
          b={b}
          names={names}
          working={working}
          asking={asking}
          canDownload={canDownload}
          onVerify={() => void start('verify')}
          onAsk={setAsking}
        />
      )}
      {asking === 'restore' && !outside && (
        <Confirm
          title={t('backups.restore_confirm', names)}
          yes={busy ? t('backups.starting') : t('backups.restore_yes', { name: b.stack })}
          onYes={() => void start('restore')}
          onNo={() => setAsking(null)}
        >
          <p>{t('backups.restore_warning', names)}</p>
          {!b.appdata && <p>{t('backups.restore_no_appdata')}</p>}
          <p>{t('backups.restore_safety')}</p>
        </Confirm>
      )}
      {asking === 'delete' && (
        <Confirm
          title={t('backups.delete_confirm', names)}
          yes={busy ? t('backups.starting') : t('backups.delete_yes')}
          danger
          onYes={() => void remove()}
          onNo={() => setAsking(null)}
        >
          <p>{t('backups.delete_warning')}</p>
        </Confirm>
      )}
      <ErrorMessage error={error} onDismiss={action.reset} />
      {asking === 'restore' && outside && (
        <OutsideConfirm
          title={t('backups.outside_confirm', { name: b.stack })}
          yes={busy ? t('backups.starting') : t('backups.outside_yes')}
          paths={outside}
          onYes={() => void start('restore', outside)}
          onNo={() => {
            action.reset();
            setAsking(null);
          }}
        >
          <p>{t('backups.outside_intro')}</p>
        </OutsideConfirm>
      )}
      {run && (
        <JobProgress
          key={run.job.id}
          job={run.job}
          label={run.kind === 'verify' ? t('backups.verifying', names) : t('backups.restoring', names)}
          onEnd={ended}
        />
      )}
      {run?.kind === 'restore' && run.ended && <RestoreOutcome job={run.ended} names={names} />}
    </li>
  );
}

interface ActionsProps {
  b: BackupT;
  names: { name: string; time: string };
  working: boolean;
  asking: Asking;
  canDownload: boolean;
  onVerify: () => void;
  onAsk: (asking: Asking) => void;
}

/** Verify, restore, download (admins) and delete; restore and delete open their question. */
function BackupActions({ b, names, working, asking, canDownload, onVerify, onAsk }: ActionsProps) {
  const toggle = (which: Exclude<Asking, null>) => !working && onAsk(asking === which ? null : which);
  return (
    <div class="backup-actions">
      <button type="button" class="btn btn-small" aria-disabled={working} aria-label={t('backups.verify_label', names)} onClick={onVerify}>
        {t('backups.verify')}
      </button>
      <button
        type="button"
        class="btn btn-small"
        aria-disabled={working}
        aria-expanded={asking === 'restore'}
        aria-label={t('backups.restore_label', names)}
        onClick={() => toggle('restore')}
      >
        {t('backups.restore')}
      </button>
      {canDownload && (
        <a class="btn btn-small" href={downloadHref(b.id)} download={b.file} aria-label={t('backups.download_label', names)}>
          {t('backups.download')}
        </a>
      )}
      <button
        type="button"
        class="btn btn-small btn-danger-quiet"
        aria-disabled={working}
        aria-expanded={asking === 'delete'}
        aria-label={t('backups.delete_label', names)}
        onClick={() => toggle('delete')}
      >
        {t('backups.delete')}
      </button>
    </div>
  );
}

/** How a restore ended, in words: on a failure the job put the previous state back. */
function RestoreOutcome({ job, names }: { job: JobT; names: { name: string; time: string } }) {
  if (job.state === 'succeeded') return <p class="backup-ok">{t('backups.restored', names)}</p>;
  if (job.state === 'failed') return <p class="backup-failed">{t('backups.restore_failed', { name: names.name })}</p>;
  return null;
}
