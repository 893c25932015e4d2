import { useState } from 'preact/hooks';
import { MIN_PASSWORD_LENGTH } from '../../../shared/passwords.ts';
import { NewPasswordField, passwordMessages } from '../../forms/password-fields.tsx';
import { t } from '../../i18n.ts';

interface PanelProps {
  name: string;
  busy: boolean;
  onCancel: () => void;
}

/** A new password for someone else's account; the length is checked here first, the server checks again. */
export function ResetPanel({ name, busy, onCancel, onSubmit }: PanelProps & { onSubmit: (password: string) => void }) {
  const [password, setPassword] = useState('');
  // After a first try the length is said under the field, and goes once it is long enough.
  const [tried, setTried] = useState(false);
  const submit = (e: Event) => {
    e.preventDefault();
    setTried(true);
    if (!passwordMessages(password, password, true).password) onSubmit(password);
  };
  return (
    <form class="user-reset" onSubmit={submit} noValidate>
      <NewPasswordField
        label={t('users.new_password', { name })}
        name="new-password"
        value={password}
        onInput={setPassword}
        hint={t('users.reset_hint', { min: MIN_PASSWORD_LENGTH })}
        error={passwordMessages(password, password, tried).password}
      />
      <div class="user-panel-buttons">
        <button type="submit" class="btn btn-small btn-primary">
          {busy ? t('users.busy') : t('users.reset_save')}
        </button>
        <button type="button" class="btn btn-small user-cancel" onClick={onCancel}>
          {t('users.cancel')}
        </button>
      </div>
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
