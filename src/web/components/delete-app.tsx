import { useEffect, useState } from 'preact/hooks';
import { type DeleteOptions, stackData } from '../api.ts';
import { t } from '../i18n.ts';
import { ErrorMessage } from './error-message.tsx';
import './delete-app.css';

interface Props {
  name: string;
  onConfirm: (opts: DeleteOptions) => void;
  onCancel: () => void;
}

/**
 * The confirmation of a delete: it names the app, offers to remove its data too and then lists
 * exactly what that removes (GET /api/stacks/<name>/data), so nothing goes that the user did not see.
 * A backup first is on by default: the delete goes on when the backup fails (said in the job log).
 */
export function DeleteApp({ name, onConfirm, onCancel }: Props) {
  const [removeData, setRemoveData] = useState(false);
  const [backup, setBackup] = useState(true);
  const [data, setData] = useState<{ folders: string[]; volumes: string[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!removeData || data) return;
    stackData(name).then(setData, setError);
  }, [removeData, data, name]);
  const items = data ? [...data.folders, ...data.volumes.map((v) => `${v} (volume)`)] : [];
  return (
    <fieldset class="delete-app">
      <legend>
        <strong>{t('apps.delete_title', { name })}</strong>
      </legend>
      <p class="muted small">{t('apps.delete_hint')}</p>
      <label class="delete-app-data">
        <input type="checkbox" checked={removeData} onChange={(e) => setRemoveData(e.currentTarget.checked)} /> {t('apps.delete_data')}
      </label>
      {removeData && data && items.length > 0 && (
        <div>
          <p class="small">{t('apps.delete_data_list')}</p>
          <ul class="delete-app-list">
            {items.map((p) => (
              <li key={p}>
                <code>{p}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {removeData && data && items.length === 0 && <p class="small">{t('apps.delete_data_none')}</p>}
      {!removeData && <p class="muted small">{t('apps.delete_data_kept')}</p>}
      <label class="delete-app-data">
        <input type="checkbox" checked={backup} onChange={(e) => setBackup(e.currentTarget.checked)} /> {t('apps.delete_backup')}
      </label>
      <ErrorMessage error={error} />
      <p class="delete-app-buttons">
        <button
          type="button"
          class="btn btn-small btn-danger"
          aria-disabled={removeData && !data}
          onClick={() => (!removeData || data) && onConfirm({ removeData, backup })}
        >
          {t('apps.delete_confirm', { name })}
        </button>
        <button type="button" class="btn btn-small btn-quiet" onClick={onCancel}>
          {t('apps.delete_cancel')}
        </button>
      </p>
    </fieldset>
  );
}
