import { useCallback, useState } from 'preact/hooks';
import { roleAllows } from '../../../shared/roles.ts';
import { ApiError, type UserT } from '../../api.ts';
import { Confirm } from '../../components/confirm.tsx';
import { AlertBox, ErrorMessage, errorText } from '../../components/error-message.tsx';
import { OutsideConfirm } from '../../components/outside-confirm.tsx';
import { outsidePaths } from '../../components/outside-paths.ts';
import { useAction } from '../../components/use-action.ts';
import { usePolled } from '../../components/use-polled.ts';
import { t } from '../../i18n.ts';
import { acceptFiles, getFilesVerdict } from './app-api.ts';

/**
 * Shown while Kade refuses to run the app's files (changed outside Kade, never accepted, or against the policies):
 * the reason, and for an admin the step "accept the files as they are now", which the server judges first.
 */
export function FilesRefusal({ name, user, onAccepted }: { name: string; user: UserT; onAccepted: () => void }) {
  const fetcher = useCallback(() => getFilesVerdict(name), [name]);
  const { data, reload } = usePolled(fetcher, 15_000);
  const [asking, setAsking] = useState(false);
  const acceptance = useAction(async (confirm?: string[]) => {
    await acceptFiles(name, confirm);
    setAsking(false);
    reload();
    onAccepted();
  });
  const { busy, error } = acceptance;
  const refusal = data?.refusal;
  if (!data || data.ok || !refusal) return null;
  const admin = roleAllows(user.role, 'admin');
  const outside = outsidePaths(error);
  const reason = errorText(new ApiError(409, refusal.code, refusal.params, [], refusal.message));

  const accept = (confirm?: string[]) => acceptance.run(confirm);

  return (
    <AlertBox>
      <p>{reason}</p>
      {/* A policy's refusal names more than its translated line (the value, the rule); the files' own refusal says it all. */}
      {refusal.code !== 'stack_files_refused' && <p class="error-detail">{t('files_refusal.detail', { detail: refusal.message })}</p>}
      {admin && !asking && (
        <p>
          <button type="button" class="btn btn-small" onClick={() => setAsking(true)}>
            {t('files_refusal.accept')}
          </button>
        </p>
      )}
      {admin && asking && !outside && (
        <Confirm
          title={t('files_refusal.confirm', { name })}
          yes={busy ? t('files_refusal.accepting') : t('files_refusal.accept_yes')}
          onYes={() => void accept()}
          onNo={() => setAsking(false)}
        >
          <p>{t('files_refusal.warning')}</p>
        </Confirm>
      )}
      <ErrorMessage error={error} onDismiss={acceptance.reset} />
      {admin && asking && outside && (
        <OutsideConfirm
          title={t('files_refusal.outside_confirm', { name })}
          yes={busy ? t('files_refusal.accepting') : t('files_refusal.outside_yes')}
          paths={outside}
          onYes={() => void accept(outside)}
          onNo={() => {
            acceptance.reset();
            setAsking(false);
          }}
        >
          <p>{t('files_refusal.outside_intro')}</p>
        </OutsideConfirm>
      )}
    </AlertBox>
  );
}
