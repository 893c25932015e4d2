import { useState } from 'preact/hooks';
import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../../shared/passwords.ts';
import { ApiError, type LoginAnswerT, setupFirstAccount } from '../../api.ts';
import { AuthLayout } from '../../components/auth-layout.tsx';
import { ErrorMessage, errorFields } from '../../components/error-message.tsx';
import { Field } from '../../components/field.tsx';
import { NewPasswordFields, type PasswordProblem, passwordProblem } from '../../components/password-fields.tsx';
import { t } from '../../i18n.ts';

interface Props {
  onDone: (answer: LoginAnswerT) => void;
  /** Someone else created the first account meanwhile: the login screen takes over. */
  onAlreadyDone: () => void;
}

export function SetupScreen({ onDone, onAlreadyDone }: Props) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [local, setLocal] = useState<PasswordProblem | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setError(null);
    const problem = passwordProblem(password, repeat);
    setLocal(problem);
    if (problem) return;
    setBusy(true);
    try {
      onDone(await setupFirstAccount(username.trim(), password));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'setup_done') return onAlreadyDone();
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const bad = errorFields(error);
  return (
    <AuthLayout title={t('setup.title')}>
      <p class="intro">{t('setup.intro')}</p>
      <form onSubmit={(e) => void submit(e)} aria-busy={busy} noValidate>
        <Field
          label={t('setup.username')}
          name="username"
          value={username}
          onInput={setUsername}
          autocomplete="username"
          hint={t('setup.username_hint')}
          invalid={bad.includes('username')}
          errorId="setup-error"
        />
        <NewPasswordFields
          label={t('setup.password')}
          name="password"
          value={password}
          onInput={setPassword}
          hint={t('setup.password_hint', { min: MIN_PASSWORD })}
          repeatLabel={t('setup.repeat')}
          repeat={repeat}
          onRepeat={setRepeat}
          problem={local}
          serverInvalid={bad.includes('password')}
          errorId="setup-error"
        />
        {local && (
          <div class="error" role="alert" id="setup-error">
            <p>{local === 'mismatch' ? t('setup.mismatch') : t('setup.too_short', { min: MIN_PASSWORD })}</p>
          </div>
        )}
        {!local && <ErrorMessage error={error} id="setup-error" />}
        <button type="submit" class="btn btn-primary btn-block">
          {busy ? t('setup.busy') : t('setup.submit')}
        </button>
      </form>
    </AuthLayout>
  );
}
