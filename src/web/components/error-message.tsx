import type { ComponentChildren } from 'preact';
import { ApiError } from '../api.ts';
import { isMessageKey, t } from '../i18n.ts';
import { forbiddenText } from './forbidden-text.ts';

// Codes whose translated text is generic; the server's English detail then says what exactly went wrong.
const DETAIL_HELPS = new Set([
  'validation',
  'invalid_json',
  'conflict',
  'engine_unreachable',
  'registry_unreachable',
  'git_failed',
  'invalid_git_url',
  'template_invalid',
  'compose_invalid',
  'compose_failed',
  'forbidden_path',
  'db_password_failed',
  'db_dump_failed',
  'db_load_failed',
  'disk_full',
  'network_invalid',
  'network_pool_exhausted',
  'internal',
  'unexpected',
]);

/** The translated main line for any thrown value; the server's detail when the code is unknown to us. */
export function errorText(err: unknown): string {
  if (!(err instanceof ApiError)) return t('error.unexpected', { status: '?' });
  const params = { ...err.params };
  if (typeof params.role === 'string') {
    const roleKey = `role.${params.role}`;
    if (isMessageKey(roleKey)) params.role = t(roleKey);
  }
  // A refused host path says which rule refused it (the same words the configure form shows at the field).
  if (err.code === 'forbidden_path' && typeof params.reason === 'string') return forbiddenText(params);
  // A name refused by the schema before any service saw it may come without the name.
  if (err.code === 'invalid_name' && (typeof params.name !== 'string' || params.name === '')) return t('error.invalid_name_unnamed');
  // A code with several reasons (compose_refused: a label, a bind of the app's own files, a link…) has a text per reason.
  const byReason = `error.${err.code}.${String(params.reason ?? '')}`;
  if (typeof params.reason === 'string' && isMessageKey(byReason)) return t(byReason, params);
  const key = `error.${err.code}`;
  if (isMessageKey(key)) return t(key, params);
  return err.detail || t('error.unexpected', { status: err.status });
}

/** The server's own explanation, shown under the translated text where it adds something. */
export function errorDetail(err: unknown): string | null {
  if (!(err instanceof ApiError) || !err.detail || !DETAIL_HELPS.has(err.code)) return null;
  return err.detail;
}

/** Fields the server named as offending, for aria-invalid on the inputs. */
export function errorFields(err: unknown): string[] {
  return err instanceof ApiError ? err.fields : [];
}

interface ErrorMessageProps {
  error: unknown;
  id?: string;
  /** Shows a close button; for errors that outlive the action that caused them. */
  onDismiss?: () => void;
}

/** An error announced to screen readers, with the server's reason when it helps. */
export function ErrorMessage({ error, id, onDismiss }: ErrorMessageProps) {
  if (error === null || error === undefined) return null;
  const detail = errorDetail(error);
  return (
    <AlertBox id={id} onDismiss={onDismiss}>
      <p>{errorText(error)}</p>
      {detail && <p class="error-detail">{t('error.details', { detail })}</p>}
    </AlertBox>
  );
}

/** The red box every refusal and failure is shown in. */
export function AlertBox({ id, onDismiss, children }: { id?: string | undefined; onDismiss?: (() => void) | undefined; children: ComponentChildren }) {
  return (
    <div class={onDismiss ? 'error error-dismissable' : 'error'} role="alert" id={id}>
      <div class="error-body">{children}</div>
      {onDismiss && (
        <button type="button" class="btn btn-quiet btn-small" onClick={onDismiss}>
          {t('job.dismiss')}
        </button>
      )}
    </div>
  );
}
