import { useId, useState } from 'preact/hooks';
import { MIN_PASSWORD_LENGTH } from '../../../shared/passwords.ts';
import type { Role } from '../../../shared/roles.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { useAction } from '../../components/use-action.ts';
import { TextField } from '../../forms/field.tsx';
import { nameProblem, refusalMarks, stillSays } from '../../forms/field-messages.ts';
import { NewPasswordField, passwordMessages } from '../../forms/password-fields.tsx';
import { t } from '../../i18n.ts';
import { type Notice, noticeText } from './notice.ts';
import { RoleSelect } from './role-select.tsx';
import { createUser } from './users-api.ts';

interface Props {
  /** The names of the accounts there are: a name among them is said to be taken while typing. */
  taken: readonly string[];
  onDone: (n: Notice) => void;
  onStart: () => void;
  /** The account this form made last, confirmed under the button where the eye is. */
  added: Notice | null;
}

/** Name, password and role of a new account; the least powerful role is the default. */
export function AddUserForm({ taken, onDone, onStart, added }: Props) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [tried, setTried] = useState(false);
  const [sent, setSent] = useState({ name: '', password: '' });
  const roleId = useId();
  const typed = name.trim();
  const add = useAction(async () => {
    setSent({ name: typed, password });
    const made = await createUser(typed, password, role);
    setName('');
    setPassword('');
    setTried(false);
    onDone({ kind: 'added', name: made.name, role: made.role });
  });

  const nameSays = nameProblem('user', typed, taken) ?? (tried && typed === '' ? t('field.required') : null);
  const pwSays = passwordMessages(password, password, tried).password;
  const submit = (e: Event) => {
    e.preventDefault();
    if (add.busy) return;
    add.reset();
    onStart();
    setTried(true);
    if (typed === '' || nameProblem('user', typed, taken) || passwordMessages(password, password, true).password) return;
    void add.run();
  };

  // A refusal speaks of what was sent; a field edited since shows its own check again.
  const refused = refusalMarks(add.error, { known: ['name', 'password'], name: { field: 'name', kind: 'user', value: sent.name } });
  const serverSays = (f: 'name' | 'password', now: string) => stillSays(refused.marks, sent, f, now);
  const fine = !add.error && nameSays === null && pwSays === null;
  return (
    <form class="card user-add" aria-labelledby="user-add-title" onSubmit={submit} aria-busy={add.busy} noValidate>
      <h2 id="user-add-title">{t('users.add_title')}</h2>
      <div class="user-add-fields">
        <TextField
          label={t('users.name')}
          name="name"
          value={name}
          onInput={setName}
          autocomplete="off"
          required
          hint={t('users.name_hint')}
          error={nameSays ?? serverSays('name', typed)}
        />
        <NewPasswordField
          label={t('users.password')}
          name="password"
          value={password}
          onInput={setPassword}
          hint={t('users.password_hint', { min: MIN_PASSWORD_LENGTH })}
          error={pwSays ?? serverSays('password', password)}
        />
        <div class="field">
          <label for={roleId}>{t('users.role')}</label>
          <RoleSelect id={roleId} value={role} onChange={setRole} />
        </div>
        <button type="submit" class="btn btn-primary user-add-submit">
          {add.busy ? t('users.busy') : t('users.add')}
        </button>
      </div>
      <div role="status" class="user-add-status">
        {added && fine && <p class="notice">{noticeText(added)}</p>}
      </div>
      <ErrorMessage error={refused.rest} id="user-add-error" />
    </form>
  );
}
