import { useState } from 'preact/hooks';
import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../../shared/passwords.ts';
import { ApiError, type LoginAnswerT, setupFirstAccount } from '../../api.ts';
import { AuthLayout } from '../../components/auth-layout.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { useAction } from '../../components/use-action.ts';
import { TextField } from '../../forms/field.tsx';
import { nameProblem, refusalMarks, stillSays } from '../../forms/field-messages.ts';
import { NewPasswordFields, passwordMessages, passwordProblem } from '../../forms/password-fields.tsx';
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
  // Whether the user tried to go on: from then on the password's problems show, and go as they are fixed.
  const [tried, setTried] = useState(false);
  const [sent, setSent] = useState({ username: '', password: '' });
  const name = username.trim();
  const create = useAction(async () => {
    setSent({ username: name, password });
    try {
      onDone(await setupFirstAccount(name, password));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'setup_done') return onAlreadyDone();
      throw err;
    }
  });

  const submit = (e: Event) => {
    e.preventDefault();
    setTried(true);
    if (nameProblem('user', name) || passwordProblem(password, repeat)) return;
    void create.run();
  };

  // A refusal speaks of what was sent; a field edited since shows its own check again.
  const refused = refusalMarks(create.error, { known: ['username', 'password'], name: { field: 'username', kind: 'user', value: sent.username } });
  const serverSays = (f: 'username' | 'password', now: string) => stillSays(refused.marks, sent, f, now);
  const pw = passwordMessages(password, repeat, tried, 'setup.mismatch');
  return (
    <AuthLayout title={t('setup.title')}>
      <p class="intro">{t('setup.intro')}</p>
      <form onSubmit={submit} aria-busy={create.busy} noValidate>
        <TextField
          label={t('setup.username')}
          name="username"
          value={username}
          onInput={setUsername}
          autocomplete="username"
          required
          hint={t('setup.username_hint')}
          error={nameProblem('user', name) ?? (tried && name === '' ? t('field.required') : null) ?? serverSays('username', name)}
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
          errors={{ password: pw.password ?? serverSays('password', password), repeat: pw.repeat }}
        />
        <ErrorMessage error={refused.rest} id="setup-error" />
        <button type="submit" class="btn btn-primary btn-block">
          {create.busy ? t('setup.busy') : t('setup.submit')}
        </button>
      </form>
    </AuthLayout>
  );
}
