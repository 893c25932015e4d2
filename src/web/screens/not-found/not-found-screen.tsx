import type { ComponentChildren } from 'preact';
import type { Role } from '../../../shared/roles.ts';
import type { UserT } from '../../api.ts';
import { roleName } from '../../components/role-name.ts';
import { type MessageKey, t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';

/** A page that only says something and leads back to the apps. */
function Dead({ title, children }: { title: MessageKey; children: ComponentChildren }) {
  return (
    <section class="page" aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        {t(title)}
      </h1>
      {children}
      <p>
        <a href="/apps" onClick={onLinkClick}>
          {t('notfound.back')}
        </a>
      </p>
    </section>
  );
}

export function NotFoundScreen() {
  return (
    <Dead title="notfound.title">
      <p>{t('notfound.text')}</p>
    </Dead>
  );
}

/** A screen that exists but needs a higher role than the user's: which role, and who can give it. */
export function RoleNeededScreen({ title, need, user }: { title: MessageKey; need: Role; user: UserT }) {
  return (
    <Dead title={title}>
      <p>{t(need === 'admin' ? 'rolegate.need.admin' : 'rolegate.need.operator')}</p>
      <p>{t('rolegate.you', { user: user.name, role: roleName(user.role) })}</p>
    </Dead>
  );
}
