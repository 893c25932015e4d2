import { useState } from 'preact/hooks';
import { type LoginAnswerT, login } from '../../api.ts';
import { AuthLayout } from '../../components/auth-layout.tsx';
import { ErrorMessage, errorFields } from '../../components/error-message.tsx';
import { useAction } from '../../components/use-action.ts';
import { TextField } from '../../forms/field.tsx';
import { refusalMarks } from '../../forms/field-messages.ts';
import { CurrentPasswordField } from '../../forms/password-fields.tsx';
import { type MessageKey, t } from '../../i18n.ts';

interface Props {
  onDone: (answer: LoginAnswerT) => void;
  /** Why the login screen is shown, e.g. an expired session; a key so it follows the language. */
  notice: MessageKey | null;
}

export function LoginScreen({ onDone, notice }: Props) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useAction(async () => onDone(await login(username.trim(), password)));
  const { busy, error } = signIn;
  const submit = (e: Event) => {
    e.preventDefault();
    void signIn.run();
  };

  // A field left empty or a name that cannot be one is said at the field; a wrong password in the box, naming both.
  const refused = refusalMarks(error, {
    known: ['username', 'password'],
    local: (f) => ((f === 'username' ? username.trim() : password) === '' ? t('field.required') : null),
    name: { field: 'username', kind: 'user', value: username.trim() },
  });
  const bad = errorFields(refused.rest);
  return (
    <AuthLayout title={t('login.title')}>
      {notice && !error && (
        <p class="notice" role="status">
          {t(notice)}
        </p>
      )}
      <form onSubmit={submit} aria-busy={busy} noValidate>
        <TextField
          label={t('login.username')}
          name="username"
          value={username}
          onInput={setUsername}
          autocomplete="username"
          required
          error={refused.marks.username}
          invalid={bad.includes('username')}
          errorId="login-error"
        />
        <CurrentPasswordField
          label={t('login.password')}
          name="password"
          value={password}
          onInput={setPassword}
          error={refused.marks.password}
          invalid={bad.includes('password')}
          errorId="login-error"
        />
        <ErrorMessage error={refused.rest} id="login-error" />
        <button type="submit" class="btn btn-primary btn-block">
          {busy ? t('login.busy') : t('login.submit')}
        </button>
      </form>
    </AuthLayout>
  );
}
