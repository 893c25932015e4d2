import { useState } from 'preact/hooks';
import type { UserT } from '../../api.ts';
import { LoadState } from '../../components/load-state.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { t } from '../../i18n.ts';
import { AddUserForm } from './add-user-form.tsx';
import { type Notice, noticeText } from './notice.ts';
import { useUsers } from './use-users.ts';
import { UserRow } from './user-row.tsx';
import './users.css';

/** Accounts and their roles, for admins: add, change role, reset a password, delete. */
export function UsersScreen({ user }: { user: UserT }) {
  const { users, error, reload } = useUsers();
  const [notice, setNotice] = useState<Notice | null>(null);

  const done = (n: Notice) => {
    // Changing or deleting the own account can take this screen away; a fresh start asks the server who we are now.
    if (n.name === user.name && (n.kind === 'deleted' || (n.kind === 'role' && n.role !== 'admin'))) {
      location.assign('/');
      return;
    }
    setNotice(n);
    reload();
  };

  return (
    <section class="page" aria-labelledby="page-title">
      <PageHead title={t('users.title')}>
        <button type="button" class="btn btn-small" onClick={reload}>
          {t('users.refresh')}
        </button>
      </PageHead>
      <p class="muted users-intro">{t('users.intro')}</p>
      {/* Always in the page, so screen readers announce what is put into it. */}
      <div role="status" class="users-status">
        {notice && notice.kind !== 'added' && <p class="notice">{noticeText(notice)}</p>}
      </div>
      <LoadState error={error} loading={users === null} text={t('users.loading')} />
      {users !== null && (
        <ul class="user-list card" aria-label={t('users.list_label')}>
          {users.map((u) => (
            <UserRow key={u.name} entry={u} isMe={u.name === user.name} onDone={done} onStart={() => setNotice(null)} />
          ))}
        </ul>
      )}
      <AddUserForm taken={users?.map((u) => u.name) ?? []} onDone={done} onStart={() => setNotice(null)} added={notice?.kind === 'added' ? notice : null} />
    </section>
  );
}
