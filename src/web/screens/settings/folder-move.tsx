import { useState } from 'preact/hooks';
import type { JobT } from '../../../shared/api.ts';
import type { SettingsT } from '../../../shared/settings.ts';
import { Confirm } from '../../components/confirm.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { JobProgress } from '../../components/job-progress.tsx';
import { useAction } from '../../components/use-action.ts';
import { t } from '../../i18n.ts';
import { movePaths } from './settings-api.ts';

const MOVABLE = ['LIBRARY_DIR', 'DATA_DIR', 'BACKUP_DIR'] as const;

/** The saved folders Kade does not work in yet: what a move would carry over. */
export const pendingMoves = (s: SettingsT) => MOVABLE.filter((k) => s[k] !== s.paths_in_use[k]).map((k) => ({ key: k, from: s.paths_in_use[k], to: s[k] }));

/**
 * When saved folders differ from the ones in use: "Move now" carries the apps, their data and the backups
 * over (a job: apps stopped, copied, verified, started again, old folders removed; Kade restarts in place).
 */
export function FolderMove({ saved, onMoved }: { saved: SettingsT; onMoved: () => void }) {
  const [asking, setAsking] = useState(false);
  const [job, setJob] = useState<JobT | null>(null);
  const moves = pendingMoves(saved);
  const move = useAction(async () => setJob((await movePaths(Object.fromEntries(moves.map((m) => [m.key, m.to])))).job));
  const { error } = move;
  if (moves.length === 0 && !job) return null;

  const start = async () => {
    setAsking(false);
    await move.run();
  };
  const ended = (j: JobT) => {
    if (j.state === 'succeeded') onMoved();
  };

  return (
    <div class="folder-move" id="folder-move">
      {moves.length > 0 && (
        <>
          <p>{t('move.pending')}</p>
          <ul class="folder-move-list">
            {moves.map((m) => (
              <li key={m.key}>
                <code>{m.key}</code>: <code>{m.from}</code> → <code>{m.to}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      {!asking && job?.state !== 'running' && moves.length > 0 && (
        <p>
          <button type="button" class="btn btn-primary" onClick={() => setAsking(true)}>
            {t('move.now')}
          </button>
        </p>
      )}
      {asking && (
        <Confirm title={t('move.confirm_title')} yes={t('move.confirm_yes')} onYes={() => void start()} onNo={() => setAsking(false)}>
          <p>{t('move.confirm_body')}</p>
        </Confirm>
      )}
      <ErrorMessage error={error} onDismiss={move.reset} />
      {job && <JobProgress key={job.id} job={job} label={t('move.running')} onEnd={ended} />}
    </div>
  );
}
