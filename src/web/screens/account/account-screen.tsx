import { useState } from 'preact/hooks';
import { MIN_PASSWORD_LENGTH } from '../../../shared/passwords.ts';
import { request, type UserT } from '../../api.ts';
import { AlertBox, ErrorMessage, errorFields } from '../../components/error-message.tsx';
import { Field } from '../../components/field.tsx';
import { t } from '../../i18n.ts';
import { roleName } from '../users/notice.ts';
import '../users/users.css';

type LocalProblem = 'mismatch' | 'too_short';

const changeOwnPassword = (current: string, next: string): Promise<void> =>
  request<undefined>('PUT', '/api/auth/password', { current_password: current, new_password: next });

/** Every user's own page: who they are, and a password change with the current password as proof. */
export function AccountScreen({ user }: { user: UserT }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [local, setLocal] = useState<LocalProblem | null>(null);
  const [done, setDone] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setError(null);
    setDone(false);
    const problem: LocalProblem | null = next.length < MIN_PASSWORD_LENGTH ? 'too_short' : next !== repeat ? 'mismatch' : null;
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
      <p class="muted users-intro">{t('account.intro', { name: user.name, role: roleName(user.role) })}</p>
      <form class="card account-form" aria-labelledby="account-password-title" onSubmit={(e) => void submit(e)} aria-busy={busy} noValidate>
        <h2 id="account-password-title">{t('account.password_title')}</h2>
        <Field
          label={t('account.current')}
          name="current_password"
          type="password"
          value={current}
          onInput={setCurrent}
          autocomplete="current-password"
          invalid={bad.includes('current_password')}
          errorId="account-error"
        />
        <Field
          label={t('account.new')}
          name="new_password"
          type="password"
          value={next}
          onInput={setNext}
          autocomplete="new-password"
          hint={t('users.password_hint', { min: MIN_PASSWORD_LENGTH })}
          invalid={local === 'too_short' || bad.includes('new_password')}
          errorId="account-error"
        />
        <Field
          label={t('account.repeat')}
          name="repeat"
          type="password"
          value={repeat}
          onInput={setRepeat}
          autocomplete="new-password"
          invalid={local === 'mismatch'}
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
