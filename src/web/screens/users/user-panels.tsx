import { useId, useState } from 'preact/hooks';
import { MIN_PASSWORD_LENGTH } from '../../../shared/passwords.ts';
import { AlertBox } from '../../components/error-message.tsx';
import { Field } from '../../components/field.tsx';
import { t } from '../../i18n.ts';

interface PanelProps {
  name: string;
  busy: boolean;
  onCancel: () => void;
}

/** A new password for someone else's account; the length is checked here first, the server checks again. */
export function ResetPanel({ name, busy, onCancel, onSubmit }: PanelProps & { onSubmit: (password: string) => void }) {
  const [password, setPassword] = useState('');
  const [tooShort, setTooShort] = useState(false);
  const errorId = useId();
  const submit = (e: Event) => {
    e.preventDefault();
    setTooShort(password.length < MIN_PASSWORD_LENGTH);
    if (password.length >= MIN_PASSWORD_LENGTH) onSubmit(password);
  };
  return (
    <form class="user-reset" onSubmit={submit} noValidate>
      <Field
        label={t('users.new_password', { name })}
        name="new-password"
        type="password"
        value={password}
        onInput={setPassword}
        autocomplete="new-password"
        hint={t('users.reset_hint', { min: MIN_PASSWORD_LENGTH })}
        invalid={tooShort}
        errorId={errorId}
      />
      <div class="user-panel-buttons">
        <button type="submit" class="btn btn-small btn-primary">
          {busy ? t('users.busy') : t('users.reset_save')}
        </button>
        <button type="button" class="btn btn-small user-cancel" onClick={onCancel}>
          {t('users.cancel')}
        </button>
      </div>
      {tooShort && (
        <AlertBox id={errorId}>
          <p>{t('users.too_short', { min: MIN_PASSWORD_LENGTH })}</p>
        </AlertBox>
      )}
    </form>
  );
}

/** The question before a delete; deleting the own account says so. */
export function DeleteQuestion({ name, busy, onCancel, onConfirm, isMe }: PanelProps & { onConfirm: () => void; isMe: boolean }) {
  return (
    <fieldset class="user-confirm">
      <legend>{isMe ? t('users.delete_confirm_me', { name }) : t('users.delete_confirm', { name })}</legend>
      <div class="user-panel-buttons">
        <button type="button" class="btn btn-small btn-danger" onClick={onConfirm}>
          {busy ? t('users.busy') : t('users.delete_yes')}
        </button>
        <button type="button" class="btn btn-small user-cancel" onClick={onCancel}>
          {t('users.cancel')}
        </button>
      </div>
    </fieldset>
  );
}
