import { useState } from 'preact/hooks';
import type { JobT } from '../../../shared/api.ts';
import { roleAllows } from '../../../shared/roles.ts';
import type { UserT } from '../../api.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { JobProgress } from '../../components/job-progress.tsx';
import { useAction } from '../../components/use-action.ts';
import { t } from '../../i18n.ts';
import { applyStack } from './app-api.ts';
import { FileEditor } from './file-editor.tsx';
import { SnapshotsPanel } from './snapshots-panel.tsx';

/**
 * The compose file for everyone to read, both files for operators and admins to edit (secrets masked; only an admin
 * shows them), and the snapshots of both.
 */
export function FilesTab({ name, user, filesVersion }: { name: string; user: UserT; filesVersion?: string | null }) {
  const admin = roleAllows(user.role, 'admin');
  const operator = roleAllows(user.role, 'operator');
  // `saves` makes the snapshot list read again; `restores` also reloads the editors with the restored text.
  const [saves, setSaves] = useState(0);
  const [restores, setRestores] = useState(0);
  const saved = () => setSaves((n) => n + 1);
  return (
    <div class="appview-stack">
      <FileEditor key={`compose-${restores}`} name={name} file="compose" editable={operator} canReveal={admin} onSaved={saved} filesVersion={filesVersion} />
      {operator && <FileEditor key={`env-${restores}`} name={name} file="env" editable canReveal={admin} onSaved={saved} filesVersion={filesVersion} />}
      {operator && (
        // Every change of the files (here or elsewhere) may have made a snapshot: the list is read again.
        <SnapshotsPanel name={name} canRestore refresh={`${saves + restores}-${filesVersion ?? ''}`} onRestored={() => setRestores((n) => n + 1)} />
      )}
      {operator && restores > 0 && <ApplyRestored key={restores} name={name} />}
    </div>
  );
}

/** A restore changes only the files; this runs them, like "Save and apply" does after an edit. */
function ApplyRestored({ name }: { name: string }) {
  const [job, setJob] = useState<JobT | null>(null);
  const run = useAction(async () => setJob(await applyStack(name)));
  const { busy, error } = run;
  const apply = async () => {
    if (!job) await run.run();
  };
  return (
    <section class="card appview-card" aria-labelledby="appview-apply">
      <h2 id="appview-apply">{t('appview.apply.title')}</h2>
      <p class="muted small">{t('appview.apply.hint')}</p>
      {!job && (
        <p>
          <button type="button" class="btn btn-primary" aria-disabled={busy} onClick={() => void apply()}>
            {t('appview.apply.button')}
          </button>
        </p>
      )}
      <ErrorMessage error={error} />
      {job && <JobProgress job={job} label={t('appview.file.applying', { name })} />}
    </section>
  );
}
