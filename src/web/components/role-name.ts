import type { Role } from '../../shared/roles.ts';
import { t } from '../i18n.ts';

/** A role's name in the current language. */
export function roleName(role: Role): string {
  switch (role) {
    case 'admin':
      return t('role.admin');
    case 'operator':
      return t('role.operator');
    case 'viewer':
      return t('role.viewer');
  }
}
