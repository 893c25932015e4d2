import { ApiError } from '../api.ts';
import { t } from '../i18n.ts';
import { AlertBox, errorDetail, errorText } from './error-message.tsx';
import { FixLine, reasonText } from './path-status.tsx';

export type SaveState =
  | { kind: 'idle' }
  | { kind: 'saving' }
  | { kind: 'saved'; restart: boolean }
  | { kind: 'invalid'; keys: string[] }
  | { kind: 'refused'; error: unknown };

const PATH_REASONS = new Set(['relative', 'system', 'outside_base', 'not_a_directory', 'not_writable', 'not_creatable', 'missing']);

/** A refused folder: what is wrong, the server's own words, and the `.env` line that fixes it. */
function PathRefusal({ error }: { error: ApiError }) {
  const { field, path, reason, base, fix } = error.params;
  return (
    <AlertBox id="settings-result">
      <p>
        <strong>{t('settings.refused')}</strong> {t('error.path_unreachable', { field: String(field), path: String(path) })}
      </p>
      {typeof reason === 'string' && PATH_REASONS.has(reason) && <p>{reasonText(reason as never, String(base ?? ''))}</p>}
      {typeof fix === 'string' && <FixLine fix={fix} />}
      <p class="error-detail">{t('error.details', { detail: error.detail })}</p>
    </AlertBox>
  );
}

/** The outcome of a save; a refusal is never shown as success. */
export function SaveResult({ state, labelOf }: { state: SaveState; labelOf: (key: string) => string }) {
  switch (state.kind) {
    case 'idle':
    case 'saving':
      return null;
    case 'saved':
      return (
        <p class="notice notice-ok" role="status" id="settings-result">
          {state.restart ? t('settings.saved_restart') : t('settings.saved')}
        </p>
      );
    case 'invalid':
      return (
        <AlertBox id="settings-result">
          <p>{t('settings.invalid', { fields: state.keys.map(labelOf).join(', ') })}</p>
        </AlertBox>
      );
    case 'refused':
      if (state.error instanceof ApiError && state.error.code === 'path_unreachable') return <PathRefusal error={state.error} />;
      return (
        <AlertBox id="settings-result">
          <p>
            <strong>{t('settings.refused')}</strong> {errorText(state.error)}
          </p>
          {errorDetail(state.error) && <p class="error-detail">{t('error.details', { detail: errorDetail(state.error) ?? '' })}</p>}
        </AlertBox>
      );
  }
}
