import { useId, useState } from 'preact/hooks';
import { MIN_PASSWORD_LENGTH } from '../../../shared/passwords.ts';
import type { Role } from '../../../shared/roles.ts';
import { AlertBox, ErrorMessage, errorFields } from '../../components/error-message.tsx';
import { Field } from '../../components/field.tsx';
import { NewPasswordField, passwordProblem } from '../../components/password-fields.tsx';
import { t } from '../../i18n.ts';
import { type Notice, noticeText } from './notice.ts';
import { RoleSelect } from './role-select.tsx';
import { createUser } from './users-api.ts';

/** Name, password and role of a new account; the least powerful role is the default. */
/** `added`: the account this form made last, confirmed under the button where the eye is. */
export function AddUserForm({ onDone, onStart, added }: { onDone: (n: Notice) => void; onStart: () => void; added: Notice | null }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [tooShort, setTooShort] = useState(false);
  const roleId = useId();

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setError(null);
    onStart();
    const short = passwordProblem(password) === 'too_short';
    setTooShort(short);
    if (short) return;
    setBusy(true);
    try {
      const made = await createUser(name.trim(), password, role);
      setName('');
      setPassword('');
      onDone({ kind: 'added', name: made.name, role: made.role });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const bad = errorFields(error);
  return (
    <form class="card user-add" aria-labelledby="user-add-title" onSubmit={(e) => void submit(e)} aria-busy={busy} noValidate>
      <h2 id="user-add-title">{t('users.add_title')}</h2>
      <div class="user-add-fields">
        <Field
          label={t('users.name')}
          name="name"
          value={name}
          onInput={setName}
          autocomplete="off"
          hint={t('users.name_hint')}
          invalid={bad.includes('name')}
          errorId="user-add-error"
        />
        <NewPasswordField
          label={t('users.password')}
          name="password"
          value={password}
          onInput={setPassword}
          hint={t('users.password_hint', { min: MIN_PASSWORD_LENGTH })}
          invalid={tooShort || bad.includes('password')}
          errorId="user-add-error"
        />
        <div class="field">
          <label for={roleId}>{t('users.role')}</label>
          <RoleSelect id={roleId} value={role} onChange={setRole} />
        </div>
        <button type="submit" class="btn btn-primary user-add-submit">
          {busy ? t('users.busy') : t('users.add')}
        </button>
      </div>
      <div role="status" class="user-add-status">
        {added && !error && !tooShort && <p class="notice">{noticeText(added)}</p>}
      </div>
      {tooShort ? (
        <AlertBox id="user-add-error">
          <p>{t('users.too_short', { min: MIN_PASSWORD_LENGTH })}</p>
        </AlertBox>
      ) : (
        <ErrorMessage error={error} id="user-add-error" />
      )}
    </form>
  );
}
