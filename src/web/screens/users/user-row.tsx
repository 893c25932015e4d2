import { useEffect, useId, useState } from 'preact/hooks';
import type { Role } from '../../../shared/roles.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatDateTime } from '../../components/format-date-time.ts';
import { PanelButton, useRowPanel } from '../../components/row-panel.tsx';
import { useAction } from '../../components/use-action.ts';
import { t } from '../../i18n.ts';
import type { Notice } from './notice.ts';
import { RoleSelect } from './role-select.tsx';
import { DeleteQuestion, ResetPanel } from './user-panels.tsx';
import { changeRole, deleteUser, resetPassword, type UserEntryT } from './users-api.ts';

interface Props {
  entry: UserEntryT;
  isMe: boolean;
  /** Called after the server accepted a change; never before, never on a refusal. */
  onDone: (n: Notice) => void;
  /** A change is on its way: an older success message must not stand next to its answer. */
  onStart: () => void;
}

type Mode = 'reset' | 'delete';

/** One account: its role (changed with an explicit save), a password reset and delete, each with the server's answer. */
export function UserRow({ entry, isMe, onDone, onStart }: Props) {
  const { name } = entry;
  const [role, setRole] = useState<Role>(entry.role);
  // An opened panel takes the focus (the password field, or the safe choice of the delete
  // question); a closed one gives it back to the button that opened it.
  const { mode, setMode, panel, toggle: open } = useRowPanel<Mode>('input, .user-cancel');
  const ids = { heading: useId(), role: useId() };

  // The list reloads after every change; the select then shows what the server holds.
  useEffect(() => setRole(entry.role), [entry.role]);

  const act = useAction(async (work: () => Promise<unknown>, notice: Notice) => {
    onStart();
    try {
      await work();
    } catch (err) {
      // A refused role change leaves the select on the role the account still has; a refused
      // delete closes its question, so the refusal is not followed by an invitation to retry.
      setRole(entry.role);
      if (mode === 'delete') setMode('idle');
      throw err;
    }
    setMode('idle');
    onDone(notice);
  });
  const { busy, error } = act;
  const run = (work: () => Promise<unknown>, notice: Notice) => act.run(work, notice);

  const toggle = (m: Mode, e: { currentTarget: HTMLButtonElement }) => {
    act.reset();
    open(m, e);
  };

  return (
    <li class="user-row" aria-labelledby={ids.heading} aria-busy={busy}>
      <UserSummary entry={entry} isMe={isMe} headingId={ids.heading} />
      <div class="user-role">
        <label for={ids.role}>{t('users.role')}</label>
        <RoleSelect id={ids.role} label={t('users.role_label', { name })} value={role} onChange={setRole} disabled={busy} />
        {role !== entry.role && (
          <button type="button" class="btn btn-small btn-primary" onClick={() => void run(() => changeRole(name, role), { kind: 'role', name, role })}>
            {busy ? t('users.busy') : t('users.save_role')}
          </button>
        )}
      </div>
      <div class="user-actions">
        <PanelButton open={mode === 'reset'} label={t('users.reset_label', { name })} onClick={(e) => toggle('reset', e)}>
          {t('users.reset')}
        </PanelButton>
        <PanelButton class="btn-danger-quiet" open={mode === 'delete'} label={t('users.delete_label', { name })} onClick={(e) => toggle('delete', e)}>
          {t('users.delete')}
        </PanelButton>
      </div>
      {mode !== 'idle' && (
        <div class="user-panel" ref={panel}>
          {mode === 'reset' ? (
            <ResetPanel
              name={name}
              busy={busy}
              onCancel={() => setMode('idle')}
              onSubmit={(pw) => void run(() => resetPassword(name, pw), { kind: 'password', name })}
            />
          ) : (
            <DeleteQuestion
              name={name}
              isMe={isMe}
              busy={busy}
              onCancel={() => setMode('idle')}
              onConfirm={() => void run(() => deleteUser(name), { kind: 'deleted', name })}
            />
          )}
        </div>
      )}
      <div class="user-message">
        <ErrorMessage error={error} onDismiss={act.reset} />
      </div>
    </li>
  );
}

function UserSummary({ entry, isMe, headingId }: { entry: UserEntryT; isMe: boolean; headingId: string }) {
  return (
    <div class="user-main">
      <h2 class="user-name-cell" id={headingId}>
        {entry.name}
        {isMe && <span class="badge badge-me">{t('users.you')}</span>}
      </h2>
      <p class="user-meta">
        <span>{entry.last_login_at ? t('users.last_login', { time: formatDateTime(entry.last_login_at) }) : t('users.never')}</span>
        <span>{t('users.created', { time: formatDateTime(entry.created_at) })}</span>
      </p>
    </div>
  );
}
