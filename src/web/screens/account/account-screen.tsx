import { useState } from 'preact/hooks';
import { MIN_PASSWORD_LENGTH } from '../../../shared/passwords.ts';
import { request, type UserT } from '../../api.ts';
import { AlertBox, ErrorMessage, errorFields } from '../../components/error-message.tsx';
import { CurrentPasswordField, NewPasswordFields, type PasswordProblem, passwordProblem } from '../../components/password-fields.tsx';
import { roleName } from '../../components/role-name.ts';
import { t } from '../../i18n.ts';
import './account.css';

const changeOwnPassword = (current: string, next: string): Promise<void> =>
  request<undefined>('PUT', '/api/auth/password', { current_password: current, new_password: next });

/** Every user's own page: who they are, and a password change with the current password as proof. */
export function AccountScreen({ user }: { user: UserT }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [local, setLocal] = useState<PasswordProblem | null>(null);
  const [done, setDone] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setError(null);
    setDone(false);
    const problem = passwordProblem(next, repeat);
    setLocal(problem);
    if (problem) return;
    setBusy(true);
    try {
      await changeOwnPassword(current, next);
      setCurrent('');
      setNext('');
      setRepeat('');
      setDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const bad = errorFields(error);
  return (
    <section class="page account" aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1}>
          {t('account.title')}
        </h1>
      </div>
      <p class="muted account-intro">{t('account.intro', { name: user.name, role: roleName(user.role) })}</p>
      <form class="card account-form" aria-labelledby="account-password-title" onSubmit={(e) => void submit(e)} aria-busy={busy} noValidate>
        <h2 id="account-password-title">{t('account.password_title')}</h2>
        <CurrentPasswordField
          label={t('account.current')}
          name="current_password"
          value={current}
          onInput={setCurrent}
          invalid={bad.includes('current_password')}
          errorId="account-error"
        />
        <NewPasswordFields
          label={t('account.new')}
          name="new_password"
          value={next}
          onInput={setNext}
          hint={t('users.password_hint', { min: MIN_PASSWORD_LENGTH })}
          repeatLabel={t('account.repeat')}
          repeat={repeat}
          onRepeat={setRepeat}
          problem={local}
          serverInvalid={bad.includes('new_password')}
          errorId="account-error"
        />
        {local ? (
          <AlertBox id="account-error">
            <p>{local === 'mismatch' ? t('account.mismatch') : t('users.too_short', { min: MIN_PASSWORD_LENGTH })}</p>
          </AlertBox>
        ) : (
          <ErrorMessage error={error} id="account-error" />
        )}
        <div role="status" class="account-status">
          {done && <p class="notice">{t('account.done')}</p>}
        </div>
        <button type="submit" class="btn btn-primary">
          {busy ? t('account.busy') : t('account.submit')}
        </button>
      </form>
    </section>
  );
}
