import { AlertBox, errorDetail, errorText } from '../../components/error-message.tsx';
import { t } from '../../i18n.ts';

export type SaveState =
  | { kind: 'idle' }
  | { kind: 'busy'; action: 'save' | 'test' }
  | { kind: 'saved' }
  | { kind: 'tested'; ok: number; total: number }
  | { kind: 'refused'; error: unknown };

function Outcome({ state, dirty }: { state: SaveState; dirty: boolean }) {
  switch (state.kind) {
    case 'saved':
      return <p class="notice nfy-notice-ok">{t('notify.saved')}</p>;
    case 'tested':
      return (
        <p class={state.ok === state.total ? 'notice nfy-notice-ok' : 'notice'}>
          {state.total === 0 ? t('notify.tested_none') : t('notify.tested', { ok: state.ok, total: state.total })}
        </p>
      );
    case 'refused':
      return null;
    default:
      return dirty ? <p class="muted nfy-dirty">{t('notify.unsaved')}</p> : null;
  }
}

/**
 * Save, or save and send a test message to every channel that is on; the outcome beside the buttons. A refusal
 * whose reasons stand at the fields (`atFields`) only points there.
 */
export function SaveBar({ state, dirty, atFields, onTest }: { state: SaveState; dirty: boolean; atFields: boolean; onTest: () => void }) {
  const busy = state.kind === 'busy';
  return (
    <div class="nfy-save-bar">
      <div class="nfy-outcome">
        <div role="status">
          <Outcome state={state} dirty={dirty} />
        </div>
        {state.kind === 'refused' && atFields && (
          <AlertBox>
            <p>
              <strong>{t('notify.refused')}</strong> {t('notify.refused_fields')}
            </p>
          </AlertBox>
        )}
        {state.kind === 'refused' && !atFields && (
          <AlertBox>
            <p>
              <strong>{t('notify.refused')}</strong> {errorText(state.error)}
            </p>
            {errorDetail(state.error) && <p class="error-detail">{t('error.details', { detail: errorDetail(state.error) ?? '' })}</p>}
          </AlertBox>
        )}
      </div>
      <div class="nfy-buttons">
        <button type="button" class="btn" aria-disabled={busy} onClick={onTest}>
          {busy && state.action === 'test' ? t('notify.testing') : t('notify.test')}
        </button>
        <button type="submit" class="btn btn-primary" aria-disabled={busy}>
          {busy && state.action === 'save' ? t('notify.saving') : t('notify.save')}
        </button>
      </div>
    </div>
  );
}
