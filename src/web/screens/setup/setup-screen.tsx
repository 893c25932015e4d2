import { useState } from 'preact/hooks';
// The server enforces the same minimum (one shared constant); checking here saves a round trip and explains it up front.
import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../../shared/passwords.ts';
import { ApiError, type LoginAnswerT, setupFirstAccount } from '../../api.ts';
import { AuthLayout } from '../../components/auth-layout.tsx';
import { ErrorMessage, errorFields } from '../../components/error-message.tsx';
import { Field } from '../../components/field.tsx';
import { t } from '../../i18n.ts';

type LocalProblem = 'mismatch' | 'too_short';

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
  const [local, setLocal] = useState<LocalProblem | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setError(null);
    if (password.length < MIN_PASSWORD) return setLocal('too_short');
    if (password !== repeat) return setLocal('mismatch');
    setLocal(null);
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
        <Field
          label={t('setup.password')}
          name="password"
          type="password"
          value={password}
          onInput={setPassword}
          autocomplete="new-password"
          hint={t('setup.password_hint', { min: MIN_PASSWORD })}
          invalid={local === 'too_short' || bad.includes('password')}
          errorId="setup-error"
        />
        <Field
          label={t('setup.repeat')}
          name="repeat"
          type="password"
          value={repeat}
          onInput={setRepeat}
          autocomplete="new-password"
          invalid={local === 'mismatch'}
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
