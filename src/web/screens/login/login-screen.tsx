import { useState } from 'preact/hooks';
import { type LoginAnswerT, login } from '../../api.ts';
import { AuthLayout } from '../../components/auth-layout.tsx';
import { ErrorMessage, errorFields } from '../../components/error-message.tsx';
import { Field } from '../../components/field.tsx';
import { CurrentPasswordField } from '../../components/password-fields.tsx';
import { type MessageKey, t } from '../../i18n.ts';

interface Props {
  onDone: (answer: LoginAnswerT) => void;
  /** Why the login screen is shown, e.g. an expired session; a key so it follows the language. */
  notice: MessageKey | null;
}

export function LoginScreen({ onDone, notice }: Props) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setError(null);
    setBusy(true);
    try {
      onDone(await login(username.trim(), password));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const bad = errorFields(error);
  return (
    <AuthLayout title={t('login.title')}>
      {notice && !error && (
        <p class="notice" role="status">
          {t(notice)}
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} aria-busy={busy} noValidate>
        <Field
          label={t('login.username')}
          name="username"
          value={username}
          onInput={setUsername}
          autocomplete="username"
          invalid={bad.includes('username')}
          errorId="login-error"
        />
        <CurrentPasswordField
          label={t('login.password')}
          name="password"
          value={password}
          onInput={setPassword}
          invalid={bad.includes('password')}
          errorId="login-error"
        />
        <ErrorMessage error={error} id="login-error" />
        <button type="submit" class="btn btn-primary btn-block">
          {busy ? t('login.busy') : t('login.submit')}
        </button>
      </form>
    </AuthLayout>
  );
}
