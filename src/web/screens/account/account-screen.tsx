import { useState } from 'preact/hooks';
import { MIN_PASSWORD_LENGTH } from '../../../shared/passwords.ts';
import { request, type UserT } from '../../api.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { roleName } from '../../components/role-name.ts';
import { useAction } from '../../components/use-action.ts';
import { refusalMarks, stillSays } from '../../forms/field-messages.ts';
import { CurrentPasswordField, NewPasswordFields, passwordMessages, passwordProblem } from '../../forms/password-fields.tsx';
import { t } from '../../i18n.ts';
import './account.css';

const changeOwnPassword = (current: string, next: string): Promise<void> =>
  request<undefined>('PUT', '/api/auth/password', { current_password: current, new_password: next });

/** Every user's own page: who they are, and a password change with the current password as proof. */
export function AccountScreen({ user }: { user: UserT }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  // After a first try the new password's problems are said at its fields, and go as they are fixed.
  const [tried, setTried] = useState(false);
  const [sent, setSent] = useState({ current_password: '', new_password: '' });
  const change = useAction(async () => {
    setSent({ current_password: current, new_password: next });
    await changeOwnPassword(current, next);
    setCurrent('');
    setNext('');
    setRepeat('');
    setTried(false);
    return true;
  });
  const { busy } = change;
  const done = change.result === true;

  const submit = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    change.reset();
    setTried(true);
    if (passwordProblem(next, repeat) || current === '') return;
    void change.run();
  };

  const pw = passwordMessages(next, repeat, tried);
  // The server's word on a field (the current password is wrong) stands at that field.
  const refused = refusalMarks(change.error, { known: ['current_password', 'new_password'] });
  return (
    <section class="page account" aria-labelledby="page-title">
      <PageHead title={t('account.title')} />
      <p class="muted account-intro">{t('account.intro', { name: user.name, role: roleName(user.role) })}</p>
      <form class="card account-form" aria-labelledby="account-password-title" onSubmit={submit} aria-busy={busy} noValidate>
        <h2 id="account-password-title">{t('account.password_title')}</h2>
        <CurrentPasswordField
          label={t('account.current')}
          name="current_password"
          value={current}
          onInput={setCurrent}
          error={stillSays(refused.marks, sent, 'current_password', current) ?? (tried && current === '' ? t('field.required') : null)}
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
          errors={{ password: pw.password ?? stillSays(refused.marks, sent, 'new_password', next), repeat: pw.repeat }}
        />
        <ErrorMessage error={refused.rest} id="account-error" />
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
