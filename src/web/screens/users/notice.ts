import type { Role } from '../../../shared/roles.ts';
import { roleName } from '../../components/role-name.ts';
import { t } from '../../i18n.ts';

/** A success message kept as data, so it follows a language switch. */
export type Notice =
  | { kind: 'added'; name: string; role: Role }
  | { kind: 'role'; name: string; role: Role }
  | { kind: 'password'; name: string }
  | { kind: 'deleted'; name: string };

export function noticeText(n: Notice): string {
  switch (n.kind) {
    case 'added':
      return t('users.done_add', { name: n.name, role: roleName(n.role) });
    case 'role':
      return t('users.done_role', { name: n.name, role: roleName(n.role) });
    case 'password':
      return t('users.done_password', { name: n.name });
    case 'deleted':
      return t('users.done_delete', { name: n.name });
  }
}
