import { formatWhen } from '../../components/backup-format.ts';
import { getLang, isMessageKey, t } from '../../i18n.ts';
import type { DeliveryT, TestResultT } from './notifications-api.ts';

/** A kind in plain words; a kind this interface does not know yet is shown as the server names it. */
export function kindText(kind: string): string {
  const key = `notify.kind.${kind}`;
  return isMessageKey(key) ? t(key) : kind;
}

/** The server's few words for a failed connection in the user's language; any other reason as the receiver gave it. */
export function reasonText(error: string): string {
  const wait = /^no answer within (\d+(?:\.\d+)?) s$/.exec(error);
  if (wait) return t('notify.why.timeout', { seconds: wait[1] ?? '' });
  if (error === 'connection refused') return t('notify.why.refused');
  if (error === 'host not found') return t('notify.why.not_found');
  if (error === 'connection reset') return t('notify.why.reset');
  return error;
}

/** What a receiver answered: delivered with its status, or why not. */
export function outcomeText(d: { ok: boolean; status?: number | undefined; error?: string | undefined }): string {
  if (d.ok) return d.status === undefined ? t('notify.result.ok') : t('notify.result.ok_status', { status: d.status });
  const error = d.error ? reasonText(d.error) : '';
  if (d.status !== undefined && error) return t('notify.result.failed_status_error', { status: d.status, error });
  if (d.status !== undefined) return t('notify.result.failed_status', { status: d.status });
  return error ? t('notify.result.failed_error', { error }) : t('notify.result.failed');
}

function Outcome({ d }: { d: { ok: boolean; status?: number | undefined; error?: string | undefined } }) {
  return (
    <span class={d.ok ? 'nfy-ok' : 'nfy-failed'}>
      <span aria-hidden="true">{d.ok ? '✓ ' : '✗ '}</span>
      {outcomeText(d)}
    </span>
  );
}

/** The answer to the last test of this channel, under its fields. */
export function TestOutcome({ result, enabled }: { result: TestResultT | null; enabled: boolean }) {
  return (
    <p class="nfy-test" role="status" data-test-result={result ? (result.ok ? 'ok' : 'failed') : 'none'}>
      {result ? (
        <>
          <strong>{t('notify.test_result')}</strong> <Outcome d={result} />
        </>
      ) : (
        !enabled && <span class="muted">{t('notify.test_off')}</span>
      )}
    </p>
  );
}

/** The last messages sent over a channel, newest first, with what the receiver answered. */
export function DeliveryHistory({ history }: { history: DeliveryT[] }) {
  const rows = [...history].sort((a, b) => b.at.localeCompare(a.at));
  return (
    <details class="nfy-history">
      <summary>{t('notify.history', { count: history.length })}</summary>
      {rows.length === 0 ? (
        <p class="muted small">{t('notify.history_empty')}</p>
      ) : (
        <div class="nfy-table-wrap">
          <table class="nfy-table">
            <thead>
              <tr>
                <th scope="col">{t('notify.history_when')}</th>
                <th scope="col">{t('notify.history_kind')}</th>
                <th scope="col">{t('notify.history_result')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d, i) => (
                <tr key={`${d.at}-${i}`}>
                  <td class="nfy-when">{formatWhen(d.at, getLang())}</td>
                  <td>{kindText(d.kind)}</td>
                  <td>
                    <Outcome d={d} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
